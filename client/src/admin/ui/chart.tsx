// A small line chart (uPlot), loaded with its own chunk only when a chart is shown. The
// numbers are always beside it as text: the chart adds the shape, never the only meaning,
// so it is hidden from assistive technology.
import { useEffect, useRef } from "preact/hooks";

export interface Series {
  /** Epoch ms of each point. */
  x: number[];
  y: number[];
}

export function Sparkline({ series, label }: { series: Series; label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let plot: { destroy(): void } | null = null;
    let gone = false;
    import("./chart-draw")
      .then(({ draw }) => {
        if (!gone && ref.current) plot = draw(ref.current, series);
      })
      .catch(() => {
        // No chart (a failed chunk, no canvas): the numbers are there anyway.
      });
    return () => {
      gone = true;
      plot?.destroy();
    };
  }, [series]);
  return <div ref={ref} class="sparkline" aria-hidden="true" data-chart={label} />;
}
