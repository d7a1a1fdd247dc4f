// The features' console pages (features/<name>/console/page.ts, each exporting `consolePage`, or `consolePages` for
// several), in the features' folder order: a module the console's build makes (scripts/build-console.ts), so core's console names none of them.

declare module 'virtual:feature-pages' {
  const pages: readonly import('./page-def.js').PageDef[];
  export default pages;
}
