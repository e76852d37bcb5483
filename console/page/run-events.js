// A run's event stream (SSE) folded into what the run view shows: the model calls with their
// text so far and the tool calls with input and output, in the order they happened.
import { useEffect, useRef, useState } from 'preact/hooks';
import { eventsUrl } from './api.js';

const TYPES = ['run_started', 'plan', 'step_started', 'model_delta', 'tool_call', 'tool_result', 'step_finished', 'decision_pending', 'decision', 'retry', 'context_compacted', 'guardrail_passed', 'guardrail_tripped', 'run_finished'];

// Events after which the run's progress (plan, steps, usage, pending decisions) has changed.
const PROGRESS_EVENTS = new Set(['plan', 'step_started', 'step_finished', 'decision_pending', 'decision', 'run_finished']);

const empty = () => ({ activity: [], finished: undefined, connected: false, last: undefined });

function fold(state, type, e) {
  const activity = state.activity;
  const at = activity.findIndex((a) => a.call === e.call);
  const replace = (entry) => (at < 0 ? [...activity, entry] : activity.map((a, i) => (i === at ? entry : a)));
  switch (type) {
    case 'model_delta':
      return { ...state, activity: replace({ kind: 'model', call: e.call, role: e.role, step: e.step, text: (at < 0 ? '' : activity[at].text) + e.text }) };
    case 'retry':
      // The attempt's text so far is void: the call streams again from the start.
      return at < 0 ? state : { ...state, activity: replace({ ...activity[at], text: '', output: undefined, ok: undefined, retries: (activity[at].retries ?? 0) + 1 }) };
    case 'tool_call':
      return { ...state, activity: replace({ kind: 'tool', call: e.call, step: e.step, tool: e.tool, input: e.input }) };
    case 'tool_result':
      return { ...state, activity: replace({ ...(at < 0 ? { kind: 'tool', call: e.call, step: e.step, tool: e.tool } : activity[at]), ok: e.ok, output: e.output }) };
    // A decision a person is asked for, then how it was taken; a denied tool call never runs, so
    // this is all the stream says of it.
    case 'decision_pending':
      return at >= 0 ? state : { ...state, activity: [...activity, { kind: 'decision', call: e.call, pending: e }] };
    case 'decision':
      return { ...state, activity: replace({ ...(at < 0 ? { kind: 'decision', call: e.call } : activity[at]), decided: e }) };
    // A prompt compacted to fit its model's window: a line of its own where it happened.
    case 'context_compacted':
      return { ...state, activity: [...activity, { kind: 'compaction', ...e }] };
    // A guardrail's verdict on the question, a tool's output or the answer: a line of its own.
    case 'guardrail_passed':
    case 'guardrail_tripped':
      return { ...state, activity: [...activity, { kind: 'guardrail', passed: type === 'guardrail_passed', ...e }] };
    case 'run_finished':
      return { ...state, finished: e };
    default:
      return state;
  }
}

/** Follows run `workflowId` from its first event; `onProgress` is called when its progress changed. */
export function useRunEvents(workflowId, onProgress) {
  const [state, setState] = useState(empty);
  // The listeners outlive renders: they call the newest callback.
  const progress = useRef(onProgress);
  progress.current = onProgress;
  useEffect(() => {
    setState(empty());
    const source = new EventSource(eventsUrl(workflowId, 0));
    source.onopen = () => setState((s) => ({ ...s, connected: true }));
    // EventSource reconnects by itself with Last-Event-ID; show that it is not live meanwhile.
    source.onerror = () => setState((s) => ({ ...s, connected: false }));
    for (const type of TYPES) {
      source.addEventListener(type, (message) => {
        const e = JSON.parse(message.data);
        // Decisions are keyed by the pending decision they answer (guidance and pauses by their offset).
        if (type === 'decision_pending' || type === 'decision') e.call = e.id ?? `decision@${message.lastEventId}`;
        if (type === 'context_compacted' || type.startsWith('guardrail_')) e.call = `${type}@${message.lastEventId}`;
        setState((s) => ({ ...fold(s, type, e), last: type }));
        if (PROGRESS_EVENTS.has(type)) progress.current();
        // The last event: the stream ends, and reconnecting would only replay nothing.
        if (type === 'run_finished') {
          source.close();
          setState((s) => ({ ...s, connected: false }));
        }
      });
    }
    return () => source.close();
  }, [workflowId]);
  return state;
}
