// The console's JSON API: adds the token, turns `{error}` bodies into thrown errors.

const TOKEN_KEY = 'perflow-console-token';

// The token arrives once in the page's URL (/?token=T); keep it for this tab and take it out of
// the address bar, so it is not copied along with links or shown in screenshots.
const params = new URLSearchParams(location.search);
if (params.has('token')) {
  sessionStorage.setItem(TOKEN_KEY, params.get('token'));
  params.delete('token');
  const rest = params.toString();
  history.replaceState(null, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
}
const token = sessionStorage.getItem(TOKEN_KEY);

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function api(path, { method = 'GET', body } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!res.ok) throw new ApiError(res.status, data?.error ?? `${res.status} ${res.statusText}`);
  return data;
}

export const post = (path, body) => api(path, { method: 'POST', body });

// EventSource cannot send headers: the stream takes the token as a query parameter.
export function eventsUrl(workflowId, from = 0) {
  const q = new URLSearchParams({ from: String(from) });
  if (token) q.set('token', token);
  return `/api/runs/${encodeURIComponent(workflowId)}/events?${q}`;
}

/** `key=value` lines as run parameters; values that parse as JSON (numbers, booleans) are used as such, as the CLI's --param does. */
export function parseParams(text) {
  const out = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`a parameter is key=value, not "${line}"`);
    const raw = line.slice(eq + 1).trim();
    let value = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    out[line.slice(0, eq).trim()] = value;
  }
  return out;
}
