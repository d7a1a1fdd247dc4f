// How big a video is, for the most a task may cost before it runs: Seedance bills `usage.total_tokens`, about
// width x height x fps x seconds / 1024 (720p at 24 fps for 5 s is ~108,000). A task reserves that for what it asks
// (the caller's resolution and duration, or Ark's defaults), and is charged what the upstream reports.

/**
 * Ark's resolutions by their short side, and the most pixels a frame of each has, whatever the ratio (21:9 is the
 * widest: 2520x1080 at 1080p): a reservation must be the task's most, never an average.
 */
const PIXELS: Readonly<Record<string, number>> = Object.freeze({ '480p': 1120 * 480, '720p': 1680 * 720, '1080p': 2520 * 1080 });

/** Ark's frame rate for Seedance (`framespersecond`). */
const FPS = 24;
/** Seedance 2.0's defaults and its longest clip (duration -1, "auto", may run this long). */
export const DEFAULT_RESOLUTION = '720p';
export const DEFAULT_SECONDS = 5;
export const MAX_SECONDS = 15;

/** Ark's ratios, for an OpenAI `size` (`1280x720`) given as the resolution and ratio Ark takes. */
const RATIOS: readonly (readonly [string, number])[] = [
  ['21:9', 21 / 9],
  ['16:9', 16 / 9],
  ['4:3', 4 / 3],
  ['1:1', 1],
  ['3:4', 3 / 4],
  ['9:16', 9 / 16],
];

export function isResolution(value: string): boolean {
  return Object.hasOwn(PIXELS, value);
}

/** `WIDTHxHEIGHT` as Ark's resolution and ratio (the nearest of each), or null when it is no size. */
export function arkSizeOf(size: string): { readonly resolution: string; readonly ratio: string } | null {
  const match = /^(\d{2,5})x(\d{2,5})$/.exec(size);
  if (match === null) return null;
  const width = Number(match[1]);
  const height = Number(match[2]);
  const short = Math.min(width, height);
  const resolution = short <= 480 ? '480p' : short <= 720 ? '720p' : '1080p';
  let ratio = '16:9';
  let distance = Infinity;
  for (const [name, value] of RATIOS) {
    const d = Math.abs(Math.log(width / height / value));
    if (d < distance) [ratio, distance] = [name, d];
  }
  return { resolution, ratio };
}

/** The most tokens a clip of `resolution` and `seconds` (null: auto, the longest) should make. */
export function maxTaskTokens(resolution: string, seconds: number | null): number {
  const pixels = PIXELS[resolution] ?? (PIXELS['1080p'] as number);
  return Math.ceil((pixels * FPS * (seconds ?? MAX_SECONDS)) / 1024);
}
