// How each operation of the usage chart looks: its own colour and its own texture (so that a
// series is told apart without colour too), the same in the bars and in the legend.

/** A texture's marks in an 8 × 8 tile: an SVG path (stroked) or dots (filled circles). */
type Texture = { path: string } | { dots: [number, number, number][] } | null;

const TEXTURES: Record<string, Texture> = {
  solid: null,
  diagonal: { path: "M-2,2 l4,-4 M0,8 l8,-8 M6,10 l4,-4" },
  "back-diagonal": { path: "M-2,6 l4,4 M0,0 l8,8 M6,-2 l4,4" },
  horizontal: { path: "M0,2 h8 M0,6 h8" },
  vertical: { path: "M2,0 v8 M6,0 v8" },
  cross: { path: "M0,0 l8,8 M8,0 l-8,8" },
  grid: { path: "M4,0 v8 M0,4 h8" },
  dots: { dots: [[2, 2, 1.3], [6, 6, 1.3]] },
  rings: { path: "M6,4 a2,2 0 1,0 -4,0 a2,2 0 1,0 4,0" },
  dashes: { path: "M0,2 h3 M4,6 h4" },
  checks: { path: "M0,2 h4 M2,0 v4 M4,6 h4 M6,4 v4" },
  zigzag: { path: "M0,6 l2,-4 l2,4 l2,-4 l2,4" },
  bricks: { path: "M0,1 h8 M0,5 h8 M2,1 v4 M6,5 v4" },
};

export interface SeriesStyle {
  colour: string;
  texture: keyof typeof TEXTURES;
}

/** Every operation GET /api/v1/credits/usage reports (the job kinds, and `other` for a charge
 * of none): a colour each, from the Okabe–Ito palette and Paul Tol's colour-blind-safe sets,
 * and a texture each, neighbours in meaning far apart in both. */
export const SERIES: Record<string, SeriesStyle> = {
  tts: { colour: "#0072b2", texture: "solid" },
  tts_realtime: { colour: "#56b4e9", texture: "diagonal" },
  dialogue: { colour: "#332288", texture: "dots" },
  stt: { colour: "#e69f00", texture: "back-diagonal" },
  stt_realtime: { colour: "#f0e442", texture: "horizontal" },
  alignment: { colour: "#8c510a", texture: "vertical" },
  isolation: { colour: "#009e73", texture: "cross" },
  voice_changer: { colour: "#cc79a7", texture: "grid" },
  dubbing: { colour: "#d55e00", texture: "rings" },
  sound: { colour: "#117733", texture: "dashes" },
  music: { colour: "#882255", texture: "checks" },
  daw: { colour: "#999933", texture: "zigzag" },
  other: { colour: "#8a8f98", texture: "bricks" },
};

// A kind this console does not know yet (a newer server) still gets a colour no known one has.
const SPARE = ["#44aa99", "#aa4499", "#ddcc77", "#661100", "#6699cc", "#88ccee"];

/** Each operation's look: known ones their own, others a spare colour in name order. */
export function seriesOf(operations: string[]): Record<string, SeriesStyle> {
  const textures = Object.keys(TEXTURES);
  const unknown = operations.filter((op) => !(op in SERIES)).sort();
  return Object.fromEntries(
    operations.map((op) => {
      const i = unknown.indexOf(op);
      const style = SERIES[op] ?? { colour: SPARE[i % SPARE.length], texture: textures[(i + 1) % textures.length] };
      return [op, style];
    }),
  );
}

/** Marks light enough on a dark colour, dark on a light one (relative luminance). */
function inkOn(colour: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(colour.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.3 ? "rgba(0, 0, 0, 0.6)" : "rgba(255, 255, 255, 0.8)";
}

/** The `<pattern>` drawing `style`'s texture, for a `fill="url(#id)"` over the colour. */
export function TexturePattern({ id, style }: { id: string; style: SeriesStyle }) {
  const texture = TEXTURES[style.texture];
  const ink = inkOn(style.colour);
  return (
    <pattern id={id} width="8" height="8" patternUnits="userSpaceOnUse" data-texture={style.texture}>
      {texture && "path" in texture && <path d={texture.path} fill="none" stroke={ink} stroke-width="1.4" />}
      {texture && "dots" in texture && texture.dots.map(([x, y, r]) => <circle key={`${x}-${y}`} cx={x} cy={y} r={r} fill={ink} />)}
    </pattern>
  );
}

/** An element id naming `operation` (kinds are `[a-z_]`; anything else is replaced). */
export function idOf(prefix: string, operation: string): string {
  return `${prefix}-${operation.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

/** The legend's key of one operation: its colour under its texture. */
export function Swatch({ operation, style }: { operation: string; style: SeriesStyle }) {
  const id = idOf("usage-key", operation);
  return (
    <svg class="swatch" width="16" height="16" aria-hidden="true">
      <defs>
        <TexturePattern id={id} style={style} />
      </defs>
      <rect class="swatch-colour" width="16" height="16" rx="2" fill={style.colour} />
      <rect width="16" height="16" rx="2" fill={`url(#${id})`} />
    </svg>
  );
}
