// The usage chart of the overview: credits per UTC day, stacked by operation, drawn as SVG
// (no chart library), with a table of the same numbers for screen readers and for copying.
import "./overview.css";

export interface OperationUsage {
  operation: string;
  credits: number;
}

export interface UsageDay {
  date: string;
  credits: number;
  operations: OperationUsage[];
}

const PALETTE = ["#2454d6", "#e07b24", "#067647", "#b42318", "#7a5af8", "#0e9384", "#c11574", "#667085"];

const WIDTH = 880;
const HEIGHT = 300;
const PLOT = { left: 76, right: 36, top: 16, bottom: 40 };

/** Each operation's colour, by its place among the sorted names (stable across reloads). */
export function coloursOf(operations: string[]): Record<string, string> {
  return Object.fromEntries(operations.map((op, i) => [op, PALETTE[i % PALETTE.length]]));
}

export function operationsIn(days: UsageDay[]): string[] {
  return [...new Set(days.flatMap((d) => d.operations.map((o) => o.operation)))].sort();
}

/** 1, 2 or 5 times a power of ten, at least `value` (an integer step of at least 1). */
function niceStep(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 2, 5, 10]) if (m * power >= value) return m * power;
  return 10 * power;
}

export function dayLabel(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
}

const count = (n: number) => n.toLocaleString();
// The axis says 1.5K rather than 1,500: short enough for the labels' phone size.
const compact = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });

export function UsageChart({ days }: { days: UsageDay[] }) {
  const operations = operationsIn(days);
  const colours = coloursOf(operations);
  const step = niceStep(Math.max(...days.map((d) => d.credits), 1) / 4);
  const top = step * 4;
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const band = plotWidth / days.length;
  const barWidth = Math.max(band * 0.7, 1);
  const y = (credits: number) => PLOT.top + plotHeight - (credits / top) * plotHeight;
  // Every k-th day is labelled, counted back from today so that today always is.
  const labelEvery = Math.ceil(days.length / 8);
  const first = days[0]?.date ?? "";
  const last = days[days.length - 1]?.date ?? "";
  return (
    <div class="usage">
      <div class="chart-wrap">
        <svg
          class="usage-chart"
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          role="img"
          aria-labelledby="usage-chart-title usage-chart-desc"
        >
          <title id="usage-chart-title">Credits charged per day, by operation</title>
          <desc id="usage-chart-desc">
            A stacked bar per UTC day from {first} to {last}; the table below gives the same numbers.
          </desc>
          {[0, 1, 2, 3, 4].map((i) => (
            <g key={i} class="tick">
              <line x1={PLOT.left} x2={WIDTH - PLOT.right} y1={y(i * step)} y2={y(i * step)} />
              <text x={PLOT.left - 6} y={y(i * step)} text-anchor="end" dominant-baseline="middle">
                {compact.format(i * step)}
              </text>
            </g>
          ))}
          {days.map((day, i) => {
            let base = 0;
            const x = PLOT.left + i * band + (band - barWidth) / 2;
            return (
              <g key={day.date} class="day">
                {day.operations.map((op) => {
                  const bottom = y(base);
                  base += op.credits;
                  return (
                    <rect
                      key={op.operation}
                      class="bar"
                      data-date={day.date}
                      data-operation={op.operation}
                      data-credits={op.credits}
                      x={x}
                      y={y(base)}
                      width={barWidth}
                      height={Math.max(bottom - y(base), 1)}
                      fill={colours[op.operation]}
                    >
                      <title>{`${day.date} (UTC), ${op.operation}: ${count(op.credits)} credits`}</title>
                    </rect>
                  );
                })}
                {(days.length - 1 - i) % labelEvery === 0 && (
                  <text class="axis" x={x + barWidth / 2} y={HEIGHT - 8} text-anchor="middle">
                    {dayLabel(day.date)}
                  </text>
                )}
              </g>
            );
          })}
          <line class="baseline" x1={PLOT.left} x2={WIDTH - PLOT.right} y1={y(0)} y2={y(0)} />
        </svg>
      </div>
      <ul class="legend" aria-label="Operations">
        {operations.map((op) => (
          <li key={op}>
            <svg width="12" height="12" aria-hidden="true">
              <rect width="12" height="12" rx="2" fill={colours[op]} />
            </svg>{" "}
            {op}
          </li>
        ))}
      </ul>
      <UsageTable days={days} operations={operations} />
    </div>
  );
}

/** The chart's numbers as a table: the days with charges, a column per operation. */
function UsageTable({ days, operations }: { days: UsageDay[]; operations: string[] }) {
  const charged = days.filter((d) => d.credits > 0).reverse();
  return (
    <details class="usage-table">
      <summary>Show the numbers as a table</summary>
      <div class="table-wrap">
        <table>
          <caption>Credits charged per UTC day and operation (days without charges left out)</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              {operations.map((op) => (
                <th scope="col" key={op} class="number">
                  {op}
                </th>
              ))}
              <th scope="col" class="number">
                Total
              </th>
            </tr>
          </thead>
          <tbody>
            {charged.map((day) => {
              const by = Object.fromEntries(day.operations.map((o) => [o.operation, o.credits]));
              return (
                <tr key={day.date}>
                  <th scope="row">{day.date}</th>
                  {operations.map((op) => (
                    <td key={op} class="number">
                      {count(by[op] ?? 0)}
                    </td>
                  ))}
                  <td class="number">{count(day.credits)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </details>
  );
}
