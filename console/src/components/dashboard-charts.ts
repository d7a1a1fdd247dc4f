// The dashboard's two charts, spend and tokens per bucket: the range's totals (cost; input and output tokens), or
// split into one series per model or per key (the server's top 5 by cost, then "other"), stacked in one bar per
// bucket so a bar's height is still the bucket's total.

import { useMemo } from 'preact/hooks';
import type { Dashboard, SplitSeries } from '../api-types.js';
import { Chart, type ChartSeries } from './chart.js';
import { formatCompact, formatMoney } from './format-number.js';
import { html } from './html.js';
import type { SplitBy } from './split-picker.js';

// Told apart at a glance, and none of them the grey that marks "other".
const PALETTE = ['#2563eb', '#ea580c', '#16a34a', '#9333ea', '#db2777', '#0891b2'];
const OTHER_COLOR = '#94a3b8';
// The server's name (and key id) for the sum of everything past its top entries.
const OTHER = 'other';

interface Split extends Pick<SplitSeries, 'cost' | 'tokens'> {
  readonly label: string;
  readonly other: boolean;
}

/** The chosen split's entries, each with the label its legend shows. */
function splitOf(d: Dashboard, by: Exclude<SplitBy, 'none'>): Split[] {
  if (by === 'model') return d.split.by_model.map((m) => ({ ...m, label: m.name, other: m.name === OTHER }));
  return d.split.by_key.map((k) => ({ ...k, label: k.name ?? k.key_id, other: k.key_id === OTHER }));
}

function seriesOf(d: Dashboard, by: SplitBy): { spend: ChartSeries[]; tokens: ChartSeries[] } {
  if (by === 'none') {
    return {
      spend: [{ label: 'Cost', color: '#2563eb', values: d.series.map((p) => Number(p.cost)) }],
      tokens: [
        { label: 'Input', color: '#0891b2', values: d.series.map((p) => p.input_tokens) },
        { label: 'Output', color: '#9333ea', values: d.series.map((p) => p.output_tokens) },
      ],
    };
  }
  const split = splitOf(d, by);
  const color = (s: Split, i: number): string => (s.other ? OTHER_COLOR : (PALETTE[i % PALETTE.length] ?? OTHER_COLOR));
  return {
    spend: split.map((s, i) => ({ label: s.label, color: color(s, i), values: s.cost.map(Number) })),
    tokens: split.map((s, i) => ({ label: s.label, color: color(s, i), values: s.tokens })),
  };
}

export function DashboardCharts(props: { readonly d: Dashboard; readonly split: SplitBy }) {
  const { d, split } = props;
  const charts = useMemo(() => ({ times: d.series.map((p) => Date.parse(p.t) / 1000), ...seriesOf(d, split) }), [d, split]);
  const per = d.range.bucket === 'hour' ? 'hour' : 'day';
  const by = split === 'none' ? '' : `, by ${split}`;
  const stacked = split !== 'none';
  return html`
    <div class="charts" data-split=${split}>
      <${Chart}
        testid="chart-spend"
        title=${`Spend per ${per}${by}`}
        times=${charts.times}
        series=${charts.spend}
        bars=${true}
        stacked=${stacked}
        format=${(v: number) => formatMoney(v, d.currency)}
      />
      <${Chart}
        testid="chart-tokens"
        title=${stacked ? `Tokens (input + output) per ${per}${by}` : `Tokens per ${per}`}
        times=${charts.times}
        series=${charts.tokens}
        bars=${stacked}
        stacked=${stacked}
        format=${formatCompact}
      />
    </div>
  `;
}
