/**
 * What a run is started with, at the path clients import; it lives in the kernel, whose agent
 * tools start sub-agent runs with it and which must not import from the folder that builds on it.
 */
export * from './kernel/run-start';
