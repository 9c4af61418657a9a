/** Types of node-timing-reporter.mjs (a node:test reporter: an async generator over the run's events). */
export default function timingReporter(source: AsyncIterable<{ type: string; data: unknown }>): AsyncGenerator<string>;
