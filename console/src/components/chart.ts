// A uPlot time chart in a container of its own (data-testid "chart-<name>"), as wide as its box: it follows the
// box's width as the window (or a phone's rotation) changes it. Times are shown in UTC, as the buckets are. uPlot
// writes legend labels as text (textContent), so a key's name in a label stays inert.

import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { html } from './html.js';

export interface ChartSeries {
  readonly label: string;
  readonly color: string;
  readonly values: readonly (number | null)[];
}

export interface ChartProps {
  readonly testid: string;
  readonly title: string;
  /** Bucket starts, unix seconds. */
  readonly times: readonly number[];
  readonly series: readonly ChartSeries[];
  /** Axis and legend values. */
  readonly format: (value: number) => string;
  /** Bars (one per bucket) instead of lines. */
  readonly bars?: boolean;
  /** With bars: the series stacked in one bar per bucket, the first on top (its legend order, top down). */
  readonly stacked?: boolean;
}

const HEIGHT = 220;

// Slate, half see-through: the same axes read on the light theme and the dark one (the canvas cannot read CSS).
const AXIS = '#7c8aa0';
const GRID = 'rgba(148, 163, 184, 0.22)';
const TICKS = 'rgba(148, 163, 184, 0.4)';

function options(props: ChartProps, width: number): uPlot.Options {
  const bars = props.bars === true ? uPlot.paths.bars?.({ size: [0.6, 48] }) : undefined;
  const step = props.times.length > 1 ? (props.times[1] ?? 0) - (props.times[0] ?? 0) : 3600;
  const pad = bars === undefined ? 0 : step / 2;
  const stacked = bars !== undefined && props.stacked === true;
  return {
    width,
    height: HEIGHT,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'),
    cursor: { drag: { x: false, y: false } },
    scales: {
      // Bars stand on their bucket's start: half a bucket of room each side keeps the first and last whole.
      x: { time: true, range: (_u, min, max) => [min - pad, max + pad] },
      // From zero, always: a bar or an area measured from the smallest value would exaggerate every change.
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      { stroke: AXIS, grid: { stroke: GRID }, ticks: { stroke: TICKS } },
      {
        stroke: AXIS,
        grid: { stroke: GRID },
        ticks: { stroke: TICKS },
        size: 64,
        values: (_u, ticks) => ticks.map((t) => props.format(t)),
      },
    ],
    series: [
      { value: '{YYYY}-{MM}-{DD} {HH}:{mm} UTC' },
      ...props.series.map((s) => {
        const series: uPlot.Series = {
          label: s.label,
          stroke: s.color,
          // Stacked bars overlap (each is drawn from zero): only an opaque fill keeps each one's colour its own.
          fill: stacked ? s.color : `${s.color}33`,
          width: stacked ? 1 : 2,
          points: { show: false },
          // The series' own value (not the stack's height, nor the null an empty bar holds); no point under the cursor: '—'.
          value: (_u: uPlot, _v: number | null, _series: number, idx: number | null) => (idx === null ? '—' : props.format(s.values[idx] ?? 0)),
        };
        if (bars !== undefined) series.paths = bars;
        return series;
      }),
    ],
  };
}

/**
 * Each series' bar height in a stack: its value plus those of every series after it. Drawn in order, the first (the
 * tallest) is drawn first and each next one over its lower part, so each colour shows exactly its own share.
 */
function stackFromLast(series: readonly ChartSeries[]): (number | null)[][] {
  const running: number[] = [];
  const heights: (number | null)[][] = [];
  for (let i = series.length - 1; i >= 0; i--) {
    const values = series[i]?.values ?? [];
    values.forEach((v, t) => (running[t] = (running[t] ?? 0) + (v ?? 0)));
    heights.unshift(values.map((_v, t) => running[t] ?? 0));
  }
  return heights;
}

export function Chart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const target = box.current;
    if (target === null || props.times.length === 0 || props.series.length === 0) return;
    // A zero bar would still draw its outline along the axis: an empty bucket draws nothing instead.
    const shown = (v: number | null): number | null => (props.bars === true && v === 0 ? null : v);
    const plotted = props.bars === true && props.stacked === true ? stackFromLast(props.series) : props.series.map((s) => s.values);
    const data: uPlot.AlignedData = [Array.from(props.times), ...plotted.map((values) => values.map(shown))];
    const plot = new uPlot(options(props, Math.max(target.clientWidth, 200)), data, target);
    const resized = new ResizeObserver(() => {
      const width = Math.max(target.clientWidth, 200);
      if (width !== plot.width) plot.setSize({ width, height: HEIGHT });
    });
    resized.observe(target);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [props.times, props.series, props.stacked]);
  // What the chart plots, per series (its label and the sum of its values), for a test or an assistive reader to check.
  const sums = props.series.map((s) => `${s.label}=${s.values.reduce<number>((sum, v) => sum + (v ?? 0), 0)}`).join(';');
  return html`
    <figure class="chart" data-testid=${props.testid} data-sums=${sums}>
      <figcaption>${props.title}</figcaption>
      ${props.times.length === 0 || props.series.length === 0
        ? html`<p class="muted">No data in this range.</p>`
        : html`<div class="chart-plot" ref=${box}></div>`}
    </figure>
  `;
}
