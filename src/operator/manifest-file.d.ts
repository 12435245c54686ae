/** manifest.yml as text: esbuild's text loader (`--loader:.yml=text` in the build script) inlines it. */
declare module '*.yml' {
  const text: string;
  export default text;
}
