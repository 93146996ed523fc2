// The usage chart of the overview: credits per UTC day, stacked by operation, drawn as SVG
// (no chart library), with a table of the same numbers for screen readers and for copying.
import type { Ref } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { idOf, seriesOf, Swatch, TexturePattern } from "./overview-series";
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

// The drawing is as wide as its box, one unit a CSS pixel, so that its text keeps its size
// (12 px) at any width; fewer days are labelled where fewer labels fit.
const DEFAULT_WIDTH = 880;
const FONT_PX = 12;
const LABEL_GAP_PX = 12;
const PAD = { top: 12, bottom: 12 + FONT_PX * 2 };

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
// The axis says 1.5K rather than 1,500: short enough for a phone.
const compact = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });

let measuring: CanvasRenderingContext2D | null | undefined;

/** The width in CSS pixels of `text` in the chart's font (an estimate where no canvas). */
function textWidth(text: string, family: string): number {
  if (measuring === undefined) measuring = document.createElement("canvas").getContext("2d");
  if (!measuring) return text.length * FONT_PX * 0.62;
  measuring.font = `${FONT_PX}px ${family}`;
  return measuring.measureText(text).width;
}

/** The element's content width, followed as it changes (a rotated phone, a resized window). */
function useWidth(): [Ref<HTMLDivElement>, number, string] {
  const ref = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState<[number, string]>([DEFAULT_WIDTH, "sans-serif"]);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => {
      const width = Math.floor(element.clientWidth);
      const family = getComputedStyle(element).fontFamily || "sans-serif";
      if (width > 0) setSize((old) => (old[0] === width && old[1] === family ? old : [width, family]));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, size[0], size[1]];
}

export function UsageChart({ days }: { days: UsageDay[] }) {
  const [wrap, width, family] = useWidth();
  const operations = operationsIn(days);
  const series = seriesOf(operations);
  const step = niceStep(Math.max(...days.map((d) => d.credits), 1) / 4);
  const top = step * 4;
  const ticks = [0, 1, 2, 3, 4].map((i) => compact.format(i * step));
  const height = width < 560 ? 220 : 300;
  const left = Math.ceil(Math.max(...ticks.map((t) => textWidth(t, family)))) + 10;
  const labels = days.map((d) => dayLabel(d.date));
  const widest = Math.max(...labels.map((l) => textWidth(l, family)), 1);
  // Room on the right for half of today's label, centred on the last bar.
  const right = Math.ceil(widest / 2) + 2;
  const plotWidth = Math.max(width - left - right, 1);
  const plotHeight = height - PAD.top - PAD.bottom;
  const band = plotWidth / Math.max(days.length, 1);
  const barWidth = Math.max(band * 0.7, 1);
  const y = (credits: number) => PAD.top + plotHeight - (credits / top) * plotHeight;
  // Every k-th day is labelled, counted back from today so that today always is: k the
  // fewest bands that hold the widest label and a gap.
  const labelEvery = Math.max(1, Math.ceil((widest + LABEL_GAP_PX) / band));
  const first = days[0]?.date ?? "";
  const last = days[days.length - 1]?.date ?? "";
  return (
    <div class="usage">
      <div class="chart-wrap" ref={wrap}>
        <svg
          class="usage-chart"
          width={width}
          height={height}
          viewBox={`0 0 ${width} ${height}`}
          role="img"
          aria-labelledby="usage-chart-title usage-chart-desc"
        >
          <title id="usage-chart-title">Credits charged per day, by operation</title>
          <desc id="usage-chart-desc">
            A stacked bar per UTC day from {first} to {last}, each operation in its own colour and
            texture; the table below gives the same numbers.
          </desc>
          <defs>
            {operations.map((op) => (
              <TexturePattern key={op} id={idOf("usage-texture", op)} style={series[op]} />
            ))}
          </defs>
          {ticks.map((tick, i) => (
            <g key={i} class="tick">
              <line x1={left} x2={width - right} y1={y(i * step)} y2={y(i * step)} />
              <text x={left - 6} y={y(i * step)} text-anchor="end" dominant-baseline="middle">
                {tick}
              </text>
            </g>
          ))}
          {days.map((day, i) => {
            let base = 0;
            const x = left + i * band + (band - barWidth) / 2;
            return (
              <g key={day.date} class="day">
                {day.operations.map((op) => {
                  const bottom = y(base);
                  base += op.credits;
                  const box = { x, y: y(base), width: barWidth, height: Math.max(bottom - y(base), 1) };
                  return (
                    <g key={op.operation}>
                      <rect
                        class="bar"
                        data-date={day.date}
                        data-operation={op.operation}
                        data-credits={op.credits}
                        {...box}
                        fill={series[op.operation].colour}
                      >
                        <title>{`${day.date} (UTC), ${op.operation}: ${count(op.credits)} credits`}</title>
                      </rect>
                      <rect class="texture" {...box} fill={`url(#${idOf("usage-texture", op.operation)})`} />
                    </g>
                  );
                })}
                {(days.length - 1 - i) % labelEvery === 0 && (
                  <text class="axis" x={x + barWidth / 2} y={height - PAD.bottom + 8 + FONT_PX} text-anchor="middle">
                    {labels[i]}
                  </text>
                )}
              </g>
            );
          })}
          <line class="baseline" x1={left} x2={width - right} y1={y(0)} y2={y(0)} />
        </svg>
      </div>
      <ul class="legend" aria-label="Operations">
        {operations.map((op) => (
          <li key={op} data-operation={op}>
            <Swatch operation={op} style={series[op]} /> {op}
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
