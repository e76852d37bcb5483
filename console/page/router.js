// Hash routes (#/runs/ID, #/diff/A/B, #/memory/ID, #/evals/ID, #/evals/compare/A/B): the server serves one page, and a link to a run can be shared.
import { useEffect, useState } from 'preact/hooks';

export function parseRoute(hash) {
  const [name = '', ...args] = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  return { name, args };
}

export const href = (...parts) => `#/${parts.map((p) => encodeURIComponent(String(p))).join('/')}`;

export function go(...parts) {
  location.hash = href(...parts);
}

export function useRoute() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return parseRoute(hash);
}
