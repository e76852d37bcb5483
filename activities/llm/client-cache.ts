/** The model adapters' SDK clients, one per setting, so a worker reuses its connections across calls. */

/** A cache of clients by their settings: `get` builds a client the first time it sees a setting. */
export interface ClientCache<Settings, Client> {
  get(settings: Settings): Client;
  /** Releases every client (worker shutdown). */
  close(): void;
}

/**
 * @param create - builds a client for a setting
 * @param destroy - releases a client's connections
 */
export function clientCache<Settings, Client>(create: (settings: Settings) => Client, destroy: (client: Client) => void = () => undefined): ClientCache<Settings, Client> {
  const clients = new Map<string, Client>();
  return {
    get(settings) {
      const key = JSON.stringify(settings);
      let client = clients.get(key);
      if (!client) {
        client = create(settings);
        clients.set(key, client);
      }
      return client;
    },
    close() {
      for (const c of clients.values()) destroy(c);
      clients.clear();
    },
  };
}
