/**
 * A remote A2A agent for tests, served by @a2a-js/sdk's own server (DefaultRequestHandler,
 * InMemoryTaskStore, JsonRpcTransportHandler) behind node:http on loopback. What it does depends
 * on the message: `fail …` fails the task, `hold …` keeps it working until `release()`, `ask …`
 * asks a question (INPUT_REQUIRED) and answers the reply; anything else is echoed (a text and a
 * data part). It counts every HTTP request and records the tasks it created and cancelled.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { AgentCard, formatSSEEvent, type Message, type Task } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, JsonRpcTransportHandler, ServerCallContext, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';

export interface A2ARemote {
  /** The agent's base URL (its card at `/.well-known/agent-card.json` under it). */
  url: string;
  /** HTTP requests received so far, by method and path (`GET /a/.well-known/agent-card.json`, `POST /a/rpc SendMessage`). */
  requests: string[];
  /** Tasks created, in order (a retried send that made a second task shows here). */
  tasksCreated: string[];
  /** Tasks cancelled through CancelTask. */
  cancelled: string[];
  /** Authorization headers received. */
  authorizations: string[];
  /** Lets every held task complete. */
  release(): void;
  /** Resolves once a task is held (the message `hold …` arrived). */
  held(): Promise<string>;
  close(): Promise<void>;
}

const PATH = '/agents/flights';

const text = (value: string) => ({ content: { $case: 'text' as const, value }, metadata: {}, filename: '', mediaType: 'text/plain' });
const data = (value: unknown) => ({ content: { $case: 'data' as const, value }, metadata: {}, filename: '', mediaType: 'application/json' });

function agentMessage(task: { id: string; contextId: string }, parts: ReturnType<typeof text>[]): Message {
  return { messageId: randomUUID(), contextId: task.contextId, taskId: task.id, role: 2, parts, metadata: {}, extensions: [], referenceTaskIds: [] };
}

/** Starts the remote agent on 127.0.0.1 (a port of its own); `endpointHost`: its card names its endpoint under that host instead. */
export async function startA2ARemote(options: { endpointHost?: string } = {}): Promise<A2ARemote> {
  const requests: string[] = [];
  const tasksCreated: string[] = [];
  const cancelled: string[] = [];
  const authorizations: string[] = [];
  let released = false;
  const waiting = new Map<string, () => void>();
  const heldWaiters: Array<(id: string) => void> = [];

  const status = (bus: ExecutionEventBus, task: { id: string; contextId: string }, state: number, said?: string) =>
    bus.publish(AgentEvent.statusUpdate({ taskId: task.id, contextId: task.contextId, status: { state, message: said === undefined ? undefined : agentMessage(task, [text(said)]), timestamp: new Date().toISOString() }, metadata: {} }));

  const executor: AgentExecutor = {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      const said = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
      const task: Task = ctx.task ?? { id: ctx.taskId, contextId: ctx.contextId, status: { state: 1, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [ctx.userMessage], metadata: {} };
      if (!ctx.task) tasksCreated.push(task.id);
      bus.publish(AgentEvent.task(task));
      status(bus, task, 2);
      // A reply to the question this agent asked.
      if (ctx.task && ctx.task.status?.state === 6) {
        status(bus, task, 3, `Booked the flight to ${said}.`);
        return bus.finished();
      }
      if (said.startsWith('fail')) {
        status(bus, task, 4, 'the flight database is down');
        return bus.finished();
      }
      if (said.startsWith('ask')) {
        status(bus, task, 6, 'Which city should the flight go to?');
        return;
      }
      if (said.startsWith('hold')) {
        for (const w of heldWaiters.splice(0)) w(task.id);
        if (!released) await new Promise<void>((r) => waiting.set(task.id, r));
        if (cancelled.includes(task.id)) return;
      }
      bus.publish(AgentEvent.artifactUpdate({ taskId: task.id, contextId: task.contextId, artifact: { artifactId: 'answer', name: 'answer', description: '', parts: [text(`echo: ${said}`), data({ flights: 3 })], metadata: {}, extensions: [] }, append: false, lastChunk: true, metadata: {} }));
      status(bus, task, 3);
      bus.finished();
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      cancelled.push(taskId);
      waiting.get(taskId)?.();
      status(bus, { id: taskId, contextId: (await store.load(taskId, new ServerCallContext()))?.contextId ?? '' }, 5, 'cancelled by the caller');
      bus.finished();
    },
  };

  const store = new InMemoryTaskStore();
  let url = '';
  const card = () =>
    AgentCard.fromJSON({
      name: 'Flight Booker',
      description: 'Books flights between cities.',
      version: '1.0.0',
      supportedInterfaces: [{ url: `${options.endpointHost ? url.replace('127.0.0.1', options.endpointHost) : url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain', 'application/json'],
      skills: [{ id: 'book', name: 'Book a flight', description: 'Finds and books a flight.', tags: ['travel'], examples: ['Book a flight from Beijing to Seattle'] }],
    });
  const handler = new DefaultRequestHandler(card(), store, executor);
  const rpc = new JsonRpcTransportHandler(handler);

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const method = req.method === 'POST' ? ` ${(JSON.parse(body || '{}') as { method?: string }).method ?? ''}` : '';
      requests.push(`${req.method} ${req.url}${method}`);
      if (req.headers.authorization) authorizations.push(req.headers.authorization);
      if (req.method === 'GET' && req.url === `${PATH}/.well-known/agent-card.json`) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(AgentCard.toJSON(card())));
        return;
      }
      if (req.method === 'POST' && req.url === `${PATH}/rpc`) {
        const version = req.headers['a2a-version'];
        const result = await rpc.handle(body, new ServerCallContext({ requestedVersion: typeof version === 'string' ? version : undefined }));
        if (result && typeof (result as AsyncGenerator)[Symbol.asyncIterator] === 'function') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for await (const event of result as AsyncGenerator) res.write(formatSSEEvent(event));
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
        return;
      }
      res.writeHead(404).end();
    })().catch((err: Error) => res.writeHead(500).end(err.message));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`;
  return {
    url,
    requests,
    tasksCreated,
    cancelled,
    authorizations,
    release() {
      released = true;
      for (const w of waiting.values()) w();
    },
    held: () => new Promise((r) => heldWaiters.push(r)),
    close: () =>
      new Promise((r) => {
        released = true;
        for (const w of waiting.values()) w();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
