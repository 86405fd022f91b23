// uPlot, in the chunk the charts load.
import uPlot from "uplot";
import type { Lines, Series } from "./chart";

export function draw(into: HTMLElement, series: Series): { destroy(): void } {
  return new uPlot(
    {
      width: 160,
      height: 40,
      cursor: { show: false },
      legend: { show: false },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      axes: [{ show: false }, { show: false }],
      scales: { x: { time: true } },
      series: [{}, { stroke: "#1f5fbf", width: 1.5, fill: "rgba(31,95,191,0.12)", points: { show: false } }],
    },
    [series.x.map((ms) => ms / 1000), series.y],
    into,
  );
}

const COLOURS = ["#1f5fbf", "#b35900", "#2e7d32"];

export function drawLines(into: HTMLElement, data: Lines): { destroy(): void } {
  const width = Math.max(280, Math.min(into.clientWidth || 640, 900));
  return new uPlot(
    {
      width,
      height: 220,
      scales: { x: { time: true } },
      series: [
        {},
        ...data.lines.map((l, i) => ({
          label: l.label,
          stroke: COLOURS[i % COLOURS.length],
          width: 2,
          dash: l.dashed ? [6, 4] : undefined,
        })),
      ],
    },
    [data.x.map((ms) => ms / 1000), ...data.lines.map((l) => l.y)],
    into,
  );
}
