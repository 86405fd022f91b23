// Line charts (uPlot), loaded with their own chunk only when a chart is shown. The numbers
// are always there as text too: a chart adds the shape, never the only meaning, so it is
// hidden from assistive technology.
import { useEffect, useRef } from "preact/hooks";

export interface Series {
  /** Epoch ms of each point. */
  x: number[];
  y: number[];
}

export interface Lines {
  x: number[];
  lines: { label: string; y: number[]; dashed?: boolean }[];
}

function useChart(draw: (into: HTMLElement, m: typeof import("./chart-draw")) => { destroy(): void }, deps: unknown[]) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let plot: { destroy(): void } | null = null;
    let gone = false;
    import("./chart-draw")
      .then((m) => {
        if (!gone && ref.current) plot = draw(ref.current, m);
      })
      .catch(() => {
        // No chart (a failed chunk, no canvas): the numbers are there anyway.
      });
    return () => {
      gone = true;
      plot?.destroy();
    };
  }, deps);
  return ref;
}

export function Sparkline({ series, label }: { series: Series; label: string }) {
  const ref = useChart((into, m) => m.draw(into, series), [series]);
  return <div ref={ref} class="sparkline" aria-hidden="true" data-chart={label} />;
}

/** A larger chart of several lines over days, with a legend (line styles differ, not only
 *  colours). */
export function LineChart({ data, label }: { data: Lines; label: string }) {
  const ref = useChart((into, m) => m.drawLines(into, data), [data]);
  return <div ref={ref} class="chart" aria-hidden="true" data-chart={label} />;
}
