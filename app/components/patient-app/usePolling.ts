import { useEffect, useRef } from "react";

/** Calls `tick` every `ms` while `active`; stops when the component unmounts or `active` turns false. */
export function usePolling(tick: () => void, ms: number, active: boolean) {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    const id = window.setInterval(() => latest.current(), ms);
    return () => window.clearInterval(id);
  }, [ms, active]);
}
