/**
 * The contract clients import (client/, console/, mcp/ and the package's users), kept at this
 * path; it lives in the kernel, which must not import from the folder that builds on it.
 */
export * from './kernel/definitions';
