// solc-js 0.8.17 (the npm alias solc-0.8.17) ships no types; the part compile-contracts.ts uses.
declare module 'solc-0.8.17' {
  const solc: {
    compile(input: string, callbacks?: { import(path: string): { contents: string } | { error: string } }): string;
    version(): string;
  };
  export default solc;
}
