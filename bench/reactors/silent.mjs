// Two reactors whose react returns [] (what attaching reactors costs a rebuild by itself).
export default [1, 2].map((i) => ({
  name: `silent-${i}`,
  react: () => [],
  execute: async () => {},
}));
