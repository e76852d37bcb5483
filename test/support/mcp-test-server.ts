/**
 * A small MCP server over stdio for tests: `add` sums two numbers, `shout` upper-cases text,
 * `wait` answers after the seconds it is given.
 * With MCP_TEST_TOKEN set, `add` names the token's SHA-256 (never the token itself).
 * Run with `node --require tsx/cjs test/support/mcp-test-server.ts`.
 */
import { createHash } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'perflow-test-mcp', version: '1.0.0' });

server.registerTool('add', { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({
  content: [{ type: 'text', text: `${a + b} (computed by ${process.env.MCP_TEST_LABEL ?? 'mcp'}${tokenNote()})` }],
}));

server.registerTool('shout', { description: 'Upper-cases a text.', inputSchema: { text: z.string() } }, ({ text }) => ({
  content: [{ type: 'text', text: text.toUpperCase() }],
}));

server.registerTool('wait', { description: 'Answers after the given seconds.', inputSchema: { seconds: z.number() } }, async ({ seconds }) => {
  await new Promise((ok) => setTimeout(ok, seconds * 1_000));
  return { content: [{ type: 'text', text: `waited ${seconds} s` }] };
});

function tokenNote(): string {
  const token = process.env.MCP_TEST_TOKEN;
  return token === undefined ? '' : `, token sha256 ${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}

void server.connect(new StdioServerTransport());
