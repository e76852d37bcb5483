/**
 * A run's events as AG-UI 1.0 events (`@ag-ui/core`): what CopilotKit and other agent front-ends
 * read. One translator per stream; it keeps what AG-UI needs and perflow's events do not say
 * (which messages, steps and sub-agents are open) so that every START has its END.
 *
 * - a model call's text → TEXT_MESSAGE_START / CONTENT / END (role assistant, messageId
 *   `RUN#CALL`), ended by the run's next event that is not its text; a retried attempt's text
 *   ends its message and continues in a new one (`RUN#CALL~2`), after a CUSTOM `perflow.retry`;
 * - a tool call → TOOL_CALL_START / ARGS / END, its result → TOOL_CALL_RESULT;
 * - a step → STEP_STARTED / STEP_FINISHED (`step N: text`);
 * - a plan → STATE_SNAPSHOT `{workflow_id, memory_id, agent, plan, steps_done}` (the root's);
 * - a sub-agent's run → SUBAGENT_STARTED (its run's workflow ID as `subagentRunId`, the agent
 *   tool's call as `parentToolCallId`), its events carrying `subagentRunId`, then
 *   SUBAGENT_FINISHED with its answer or SUBAGENT_ERROR;
 * - decisions waiting and taken → CUSTOM `perflow.decision_pending` / `perflow.decision`;
 * - the end → the answer as a last assistant message (`RUN#response`), then RUN_FINISHED with
 *   `result: {response, output?, workflow_id, memory_id}` (`output`: a typed answer's value); a failed, cancelled or terminated run → RUN_ERROR.
 */
import { EventType, type BaseEvent } from '@ag-ui/core';
import type { RunEvent } from '../core/run-events';
import { preview } from '../core/text';

export interface AgUiRun {
  threadId: string;
  runId: string;
  /** The root run, when known before its first event (a stream followed from an offset). */
  workflowId?: string;
}

type Emitted = BaseEvent & Record<string, unknown>;

export class AgUiTranslator {
  /** Open text messages: the call they write (`RUN#CALL`) → their message ID. */
  private readonly texts = new Map<string, string>();
  /** Attempts of calls whose text was retried: call → attempt. */
  private readonly attempts = new Map<string, number>();
  /** Calls whose message has ended: more text of theirs opens a new message. */
  private readonly ended = new Map<string, number>();
  /** Open steps: `RUN#index` → step name. */
  private readonly steps = new Map<string, string>();
  /** Sub-agents' runs: workflow ID → the tool call that started it and its caller's run. */
  private readonly subRuns = new Map<string, { toolCallId: string; caller?: string }>();
  private readonly openSubRuns = new Set<string>();
  private state: { workflow_id?: string; memory_id?: string; agent?: string; plan: string[]; steps_done: number } = { plan: [], steps_done: 0 };
  private finished = false;

  constructor(private readonly run: AgUiRun) {
    if (run.workflowId !== undefined) this.state.workflow_id = run.workflowId;
  }

  /** The root run's prefix of message, step and tool call IDs. */
  private get root(): string {
    return this.state.workflow_id ?? '';
  }

  /** `subagentRunId` of what a run owns: none for the root's. */
  private ownedBy(owner: string): { subagentRunId?: string } {
    return owner !== this.root ? { subagentRunId: owner } : {};
  }

  /** The first event of the stream. */
  started(): Emitted[] {
    return [{ type: EventType.RUN_STARTED, threadId: this.run.threadId, runId: this.run.runId }];
  }

  /** Whether the root's run has ended (RUN_FINISHED or RUN_ERROR sent). */
  get done(): boolean {
    return this.finished;
  }

  translate(e: RunEvent): Emitted[] {
    if (this.finished) return [];
    const run = e.run;
    const sub = run !== undefined ? { subagentRunId: run } : {};
    // IDs are unique in the thread: prefixed by the run (the root's too: a thread holds many runs).
    const owner = run ?? this.root;
    const key = (id: string) => `${owner}#${id}`;
    if (e.type === 'model_delta') return this.text(key(e.call), e.text, sub);
    const out: Emitted[] = this.endTexts(owner);
    switch (e.type) {
      case 'run_started':
        if (run === undefined) {
          this.state = { ...this.state, workflow_id: e.workflow_id, memory_id: e.memory_id, agent: e.agent };
          out.push(this.snapshot());
        } else {
          const link = this.subRuns.get(run);
          this.openSubRuns.add(run);
          out.push({ type: EventType.SUBAGENT_STARTED, subagentRunId: run, name: e.agent, ...(link?.caller !== undefined ? { parentSubagentRunId: link.caller } : {}), ...(link ? { parentToolCallId: link.toolCallId } : {}) });
        }
        break;
      case 'plan':
        if (run === undefined) {
          this.state.plan = e.steps;
          out.push(this.snapshot());
        }
        break;
      case 'step_started': {
        const name = `step ${e.index + 1}: ${preview(e.step, 80)}`;
        this.steps.set(key(String(e.index)), name);
        out.push({ type: EventType.STEP_STARTED, stepName: name, ...sub });
        break;
      }
      case 'step_finished': {
        const name = this.steps.get(key(String(e.index)));
        if (name !== undefined) {
          this.steps.delete(key(String(e.index)));
          out.push({ type: EventType.STEP_FINISHED, stepName: name, ...sub });
        }
        if (run === undefined) this.state.steps_done++;
        break;
      }
      case 'tool_call': {
        const toolCallId = key(e.call);
        if (e.sub_run) this.subRuns.set(e.sub_run.workflow_id, { toolCallId, ...(run !== undefined ? { caller: run } : {}) });
        out.push(
          { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: e.tool, ...sub },
          { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: e.input, ...sub },
          { type: EventType.TOOL_CALL_END, toolCallId, ...sub },
        );
        break;
      }
      case 'tool_result':
        out.push({ type: EventType.TOOL_CALL_RESULT, messageId: `${key(e.call)}:result`, toolCallId: key(e.call), content: e.output, role: 'tool', ...sub });
        break;
      case 'decision_pending': {
        const { type: _t, offset: _o, at: _a, ...decision } = e;
        out.push({ type: EventType.CUSTOM, name: 'perflow.decision_pending', value: decision, ...sub });
        break;
      }
      case 'decision':
        out.push({ type: EventType.CUSTOM, name: 'perflow.decision', value: { id: e.id, kind: e.kind, action: e.action, by: e.by }, ...sub });
        break;
      case 'retry':
        // The attempt's text so far is superseded: its message ends, the next attempt writes a new one.
        if (e.role !== undefined) {
          this.attempts.set(key(e.call), e.attempt);
          this.ended.delete(key(e.call));
        }
        out.push({ type: EventType.CUSTOM, name: 'perflow.retry', value: { call: key(e.call), attempt: e.attempt, ...(e.tool !== undefined ? { tool: e.tool } : {}) }, ...sub });
        break;
      case 'context_compacted':
        out.push({ type: EventType.CUSTOM, name: 'perflow.context_compacted', value: { role: e.role, model: e.model, strategy: e.strategy, window: e.window, tokens_before: e.tokens_before, tokens_after: e.tokens_after, dropped: e.dropped, ...(e.step !== undefined ? { step: e.step } : {}) }, ...sub });
        break;
      case 'guardrail_passed':
      case 'guardrail_tripped':
        out.push({ type: EventType.CUSTOM, name: `perflow.${e.type}`, value: { place: e.place, check: e.check, detail: e.detail, ...(e.type === 'guardrail_tripped' ? { action: e.action } : {}) }, ...sub });
        break;
      case 'run_finished':
        out.push(...this.endSteps(owner));
        if (run !== undefined) {
          this.openSubRuns.delete(run);
          out.push(
            e.status === 'completed'
              ? { type: EventType.SUBAGENT_FINISHED, subagentRunId: run, result: e.response }
              : { type: EventType.SUBAGENT_ERROR, subagentRunId: run, message: `${e.status}${e.error ? `: ${e.error}` : ''}` },
          );
        } else {
          out.push(...this.finish(e));
        }
        break;
    }
    return out;
  }

  /**
   * What ends the stream when the run's end was not seen (the stream stopped first): open
   * messages, steps and sub-agents closed, and RUN_ERROR saying why.
   */
  abandoned(why: string): Emitted[] {
    if (this.finished) return [];
    this.finished = true;
    return [...this.endTexts(undefined, true), ...this.endSteps(undefined, true), ...this.endSubRuns(), { type: EventType.RUN_ERROR, message: why, code: 'stream_ended' }];
  }

  private finish(e: Extract<RunEvent, { type: 'run_finished' }>): Emitted[] {
    this.finished = true;
    const out = [...this.endTexts(undefined, true), ...this.endSteps(undefined, true), ...this.endSubRuns()];
    if (e.status !== 'completed') return [...out, { type: EventType.RUN_ERROR, message: `the run ${e.status}${e.error ? `: ${e.error}` : e.status === 'tripped' ? `: ${e.response}` : ''}`, code: e.status }];
    const messageId = `${this.root}#response`;
    return [
      ...out,
      { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' },
      ...(e.response !== '' ? [{ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: e.response }] : []),
      { type: EventType.TEXT_MESSAGE_END, messageId },
      { type: EventType.RUN_FINISHED, threadId: this.run.threadId, runId: this.run.runId, result: { response: e.response, ...(e.output !== undefined ? { output: e.output } : {}), workflow_id: this.state.workflow_id, memory_id: this.state.memory_id } },
    ];
  }

  private text(call: string, delta: string, sub: { subagentRunId?: string }): Emitted[] {
    const out: Emitted[] = [];
    const attempt = this.attempts.get(call) ?? 1;
    const reopened = this.ended.get(call) ?? 0;
    const messageId = `${call}${attempt > 1 ? `~${attempt}` : ''}${reopened > 0 ? `.${reopened}` : ''}`;
    const open = this.texts.get(call);
    if (open !== undefined && open !== messageId) {
      out.push({ type: EventType.TEXT_MESSAGE_END, messageId: open, ...sub });
      this.texts.delete(call);
    }
    if (!this.texts.has(call)) {
      out.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant', ...sub });
      this.texts.set(call, messageId);
    }
    if (delta !== '') out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta, ...sub });
    return out;
  }

  /** Ends the open messages of one run (every run's with `all`). */
  private endTexts(owner: string | undefined, all = false): Emitted[] {
    return this.close(this.texts, owner, all, (call, messageId, of) => {
      this.ended.set(call, (this.ended.get(call) ?? 0) + 1);
      return { type: EventType.TEXT_MESSAGE_END, messageId, ...this.ownedBy(of) };
    });
  }

  private endSteps(owner: string | undefined, all = false): Emitted[] {
    return this.close(this.steps, owner, all, (_k, stepName, of) => ({ type: EventType.STEP_FINISHED, stepName, ...this.ownedBy(of) }));
  }

  /** Takes the entries of `open` a run owns (keys `RUN#…`) out of it, each as the event that ends it. */
  private close(open: Map<string, string>, owner: string | undefined, all: boolean, end: (key: string, value: string, of: string) => Emitted): Emitted[] {
    const out: Emitted[] = [];
    for (const [key, value] of open) {
      const of = key.slice(0, key.lastIndexOf('#'));
      if (!all && of !== owner) continue;
      open.delete(key);
      out.push(end(key, value, of));
    }
    return out;
  }

  private endSubRuns(): Emitted[] {
    const out: Emitted[] = [...this.openSubRuns].reverse().map((id) => ({ type: EventType.SUBAGENT_ERROR, subagentRunId: id, message: 'its stream ended before the run did' }));
    this.openSubRuns.clear();
    return out;
  }

  private snapshot(): Emitted {
    return { type: EventType.STATE_SNAPSHOT, snapshot: { ...this.state, plan: [...this.state.plan] } };
  }
}
