/**
 * uPlot draws at a fixed pixel width: these keep a chart as wide as its box (decision 0070), so a chart drawn on a
 * wide window never sticks out of the page once the window narrows (a phone turned, a window resized).
 */
export const chartWidth = (box: HTMLElement) => Math.max(200, box.clientWidth || 600);

/** Resizes `plot` whenever `box` changes width; returns the cleanup. */
export function followBoxWidth(
  box: HTMLElement,
  plot: { setSize(size: { width: number; height: number }): void },
  height: number,
): () => void {
  if (typeof ResizeObserver === "undefined") return () => undefined;
  let width = chartWidth(box);
  const observer = new ResizeObserver(() => {
    if (chartWidth(box) === width) return;
    width = chartWidth(box);
    plot.setSize({ width, height });
  });
  observer.observe(box);
  return () => observer.disconnect();
}
