// One effect per applied event, executed as a no-op (the benchmarks' reactor).
export default [
  {
    name: 'every',
    react: ({ position }) => [{ type: 'seen', position }],
    execute: async () => {},
  },
];
