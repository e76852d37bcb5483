/**
 * The MongoDB driver's classes the stores use at run time (error types, `Binary`), loaded when
 * first used: the client library imports the stores, and a program that only starts runs or
 * reads their progress should not load the driver (131 modules) to do it. Whoever talks to
 * MongoDB has loaded it already with its `MongoClient`.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const mongoDriver = () => require('mongodb') as typeof import('mongodb');
