// Small formatting helpers shared by the views.

export const shortTime = (iso) => (iso ? new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }) : '');

// A cost in US dollars as the CLI shows it (core/text.ts formatCost): null when a model had no known price.
export const cost = (usd) => {
  if (usd === null || usd === undefined) return 'cost unknown';
  if (usd === 0) return '$0';
  if (usd >= 0.01) return `$${usd.toFixed(2)}`;
  if (usd < 0.000001) return '<$0.000001';
  return `$${usd.toFixed(6).replace(/0+$/, '')}`;
};

// An amount in US dollars in full (a cap or a cost being decided on): no rounding to cents, no exponent.
export const dollars = (usd) => (typeof usd === 'number' ? `$${usd.toLocaleString('en-US', { maximumSignificantDigits: 6 })}` : 'unknown');

// Counts a server did not report in full (tokens_unknown) are lower bounds: `≥`, or `unknown` when none came.
const count = (u, n) => (u.tokens_unknown ? `≥${n}` : `${n}`);
export const tokens = (u) =>
  !u ? '' : u.tokens_unknown && u.input_tokens + u.output_tokens === 0 ? `unknown · ${cost(u.cost_usd)}` : `${count(u, u.input_tokens)} in / ${count(u, u.output_tokens)} out · ${cost(u.cost_usd)}`;

export const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

export const json = (value) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

// Statuses of the runs list and of a run's progress, grouped into the colours the CSS knows.
const TONE = {
  running: 'running', planning: 'running', executing: 'running',
  awaiting_approval: 'waiting', awaiting_budget: 'waiting', paused: 'waiting', queued: 'waiting',
  completed: 'ok',
  failed: 'bad', cancelled: 'bad', canceled: 'bad', terminated: 'bad', timed_out: 'bad', tripped: 'bad',
};
export const tone = (status) => TONE[status] ?? 'neutral';

// An eval's pass rate as `9/10 (90%)`.
export const passRate = (passed, failed) => {
  const total = passed + failed;
  return `${passed}/${total} (${total ? Math.round((passed / total) * 100) : 0}%)`;
};

// A case's tokens, in and out together.
export const tokenCount = (u) => (u ? u.input_tokens + u.output_tokens : 0);

// A signed change (a delta between two evals): `+12`, `−0.4 s`, `±0`.
export const signed = (n, show = String) => (n > 0 ? `+${show(n)}` : n < 0 ? `−${show(-n)}` : `±${show(0)}`);
