/** Files imported `with { type: "file" }`: Bun gives their path (embedded in the compiled binary). */
declare module "*.wasm" {
  const path: string;
  export default path;
}

declare module "*/browser/standalone.js" {
  const path: string;
  export default path;
}
