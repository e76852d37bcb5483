/**
 * Steering a run between steps: guidance for the next planning call, and pause / resume (the
 * run holds at its next point between steps until resumed).
 */
import { condition, setHandler } from '@temporalio/workflow';
import { guideUpdate, pauseUpdate, resumeUpdate } from '../definitions';
import { GUIDANCE_MAX_CHARS, PENDING_FEEDBACK_MAX } from '../../../core/decisions';
import { byOf, checkBy, expectObject, type Decisions } from './pending';

/** The heading of the feedback section appended to a planning prompt (docs/people-in-the-loop.md). */
export const FEEDBACK_HEADING = 'USER FEEDBACK (from a person overseeing this run; take it into account):';

export interface Steering {
  /** Holds the run while it is paused (called between steps). */
  holdWhilePaused(): Promise<void>;
  /** Guidance and rejection reasons not yet seen by a planning call, as a prompt section ('' when none); consumed. */
  takeFeedback(): string;
  /** Whether guidance is waiting for the next planning call. */
  hasFeedback(): boolean;
}

/** Sets up the guidance, pause and resume Updates. */
export function openSteering(desk: Decisions): Steering {
  const { run, state } = desk;
  const { progress } = run;

  setHandler(
    guideUpdate,
    async (g) => {
      const by = byOf(g.by);
      state.feedback.push(`Guidance from ${by}: ${g.text.trim()}`);
      return desk.record({ kind: 'guidance', action: 'guide', by, detail: g.text.trim() });
    },
    {
      validator: (g) => {
        desk.notEnded();
        expectObject(g, 'guidance');
        if (typeof g.text !== 'string' || g.text.trim() === '') throw new Error('guidance needs a text');
        // What the run carries for its next planning call is bounded: across continue-as-new and in the prompt.
        if (g.text.length > GUIDANCE_MAX_CHARS) throw new Error(`guidance: ${g.text.length} characters is above the limit of ${GUIDANCE_MAX_CHARS}`);
        if (state.feedback.length >= PENDING_FEEDBACK_MAX) throw new Error(`the run holds ${PENDING_FEEDBACK_MAX} pieces of guidance its next planning call has not seen yet: send more once it has planned`);
        checkBy(g.by);
      },
    },
  );

  // Pause and resume: the same switch, each way refused when it changes nothing.
  for (const [update, pause] of [
    [pauseUpdate, true],
    [resumeUpdate, false],
  ] as const) {
    const kind = pause ? 'pause' : 'resume';
    setHandler(
      update,
      async (x) => {
        state.paused = pause;
        progress.paused = pause ? true : undefined;
        return desk.record({ kind, action: kind, by: byOf(x.by), ...(x.reason ? { detail: x.reason } : {}) });
      },
      {
        validator: (x) => {
          desk.notEnded();
          if (state.paused === pause) throw new Error(pause ? 'the run is already paused' : 'the run is not paused');
          checkBy(x?.by);
        },
      },
    );
  }

  if (state.paused) progress.paused = true;

  return {
    async holdWhilePaused() {
      if (!state.paused) return;
      const before = progress.status;
      progress.status = 'paused';
      desk.setHolding(true);
      run.showProgress();
      await condition(() => !state.paused);
      progress.status = before;
      desk.setHolding(false);
      run.showProgress();
    },
    takeFeedback() {
      if (state.feedback.length === 0) return '';
      const section = `\n\n${FEEDBACK_HEADING}\n${state.feedback.map((f) => `- ${f}`).join('\n')}`;
      state.feedback.length = 0;
      return section;
    },
    hasFeedback: () => state.feedback.length > 0,
  };
}
