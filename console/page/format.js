// Small formatting helpers shared by the views.

export const shortTime = (iso) => (iso ? new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }) : '');

export const tokens = (u) => (u ? `${u.input_tokens} in / ${u.output_tokens} out` : '');

export const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

export const json = (value) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

// Statuses of the runs list and of a run's progress, grouped into the colours the CSS knows.
const TONE = {
  running: 'running', planning: 'running', executing: 'running',
  awaiting_approval: 'waiting', paused: 'waiting',
  completed: 'ok',
  failed: 'bad', cancelled: 'bad', canceled: 'bad', terminated: 'bad', timed_out: 'bad',
};
export const tone = (status) => TONE[status] ?? 'neutral';
