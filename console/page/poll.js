// Re-reads something every few seconds while the component is shown; a failed read keeps the last value and shows the error.
import { useEffect, useRef, useState } from 'preact/hooks';

export function usePoll(load, intervalMs, deps) {
  const [state, setState] = useState({ data: undefined, error: undefined });
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    let timer;
    const tick = async () => {
      try {
        const data = await load();
        if (live.current) setState({ data, error: undefined });
      } catch (err) {
        if (live.current) setState((s) => ({ data: s.data, error: err.message }));
      }
      if (live.current && intervalMs) timer = setTimeout(tick, intervalMs);
    };
    tick();
    return () => {
      live.current = false;
      clearTimeout(timer);
    };
  }, deps);
  return state;
}
