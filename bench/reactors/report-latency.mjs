// One effect per applied event; execute tells the benchmark (LATENCY_URL) which position it starts.
const url = process.env.LATENCY_URL;
export default [
  {
    name: 'latency',
    react: ({ position }) => [{ type: 'seen', position }],
    execute: async (effect) => {
      const answer = await fetch(`${url}/${effect.position}`, { method: 'POST' });
      await answer.arrayBuffer();
    },
  },
];
