/** The floor workflow's activity: a round trip that does nothing. */
export const benchActivities = {
  async noop(): Promise<void> {
    // nothing: the cost measured is Temporal's
  },
};

export type BenchActivities = typeof benchActivities;
