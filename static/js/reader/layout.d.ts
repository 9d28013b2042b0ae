/** Types of ./layout.js for the server, which imports it (src/http/web/reader-screen.ts). */
export type PageSize = readonly [number, number] | null;
export interface ScreenSize {
  clientWidth: number;
  clientHeight: number;
}
export type Mode = "ltr" | "rtl" | "vertical" | "webtoon";
export type Fit = "screen" | "width" | "height" | "original";
export type Spread = "auto" | "single" | "double";
export interface OpeningState {
  page: number;
  mode: Mode;
  fit: Fit;
  spread: Spread;
}
export interface OpeningSettings {
  series(field: string): unknown;
  value(field: string): unknown;
}

export function screensOf(sizes: readonly PageSize[], double: boolean): number[][];
export function requestWidth(cssWidth: number, pixelRatio: number): number | null;
export function pageUrl(base: string, page: number, width: number | null): string;
export const MODE_OF_DIRECTION: Record<string, Mode>;
export const MODES: Mode[];
export const FITS: Fit[];
export const SPREADS: Spread[];
export function openingState(data: { pageCount: string | number; startPage: string | number; direction: string }, settings: OpeningSettings): OpeningState;
export function isPaged(mode: Mode): boolean;
export function wantsDouble(spread: Spread, viewport: ScreenSize): boolean;
export function shownWidth(state: OpeningState, size: PageSize, perScreen: number, viewport: ScreenSize): number;
export function pageWidth(state: OpeningState, size: PageSize, perScreen: number, viewport: ScreenSize, pixelRatio: number): number | null;
export function pageAddress(base: string, state: OpeningState, page: number, size: PageSize, perScreen: number, viewport: ScreenSize, pixelRatio: number): string;
export function screenOf(screens: number[][], page: number): number;
export function firstPages(state: OpeningState, sizes: readonly PageSize[], viewport: ScreenSize): number[];
