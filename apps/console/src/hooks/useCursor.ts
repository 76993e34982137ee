import { useState } from "react";

/** Where a cursor-paged list is: `next` and `previous` move, `page` counts from 1. */
export interface Cursor {
  cursor: string | undefined;
  page: number;
  next: (nextCursor: string) => void;
  previous: () => void;
}

/**
 * Cursor pagination: a stack of cursors, so Previous returns to the page seen before. A new `filtersKey`
 * (other filters) starts again at page 1.
 */
export function useCursor(filtersKey: string): Cursor {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  const [seenKey, setSeenKey] = useState(filtersKey);
  if (seenKey !== filtersKey) {
    setSeenKey(filtersKey);
    setStack([undefined]);
  }
  return {
    cursor: stack[stack.length - 1],
    page: stack.length,
    next: (nextCursor: string) => setStack((s) => [...s, nextCursor]),
    previous: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
  };
}
