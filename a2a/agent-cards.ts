/**
 * The Agent Card of each offered agent, in its two forms: v1.0 (`supportedInterfaces`) and, for
 * v0.3 clients (a request without `A2A-Version: 1.0`), v0.3 (`url`, `protocolVersion`), which
 * embeds the v1.0 interfaces too. Name and description are the agent file's; one skill: the agent.
 */
import { AgentCard } from '@a2a-js/sdk';
import { packageVersion } from '../client/package-root';
import type { OfferedAgent } from '../mcp/agent-tools';

/** The path of an agent's endpoint under the server's base URL: JSON-RPC there, HTTP+JSON's routes under it. */
export const agentPath = (agent: OfferedAgent): string => `/a2a/${encodeURIComponent(agent.tool)}`;

const INPUT_MODES = ['text/plain', 'application/json'];
const OUTPUT_MODES = ['text/plain', 'application/json'];
const SECURITY_SCHEME = 'bearer';
const SECURITY_TEXT = 'The token `perflow a2a` printed, or one of its --tokens file (each sees its tenant\'s tasks only).';

/** The card as a v1.0 client reads it (ProtoJSON). */
export function cardJson(agent: OfferedAgent, baseUrl: string): Record<string, unknown> {
  const url = `${baseUrl}${agentPath(agent)}`;
  return {
    name: agent.agent,
    description: agent.description,
    version: packageVersion(),
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
      { url, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3', tenant: '' },
    ],
    capabilities: { streaming: true, pushNotifications: true, extensions: [] },
    securitySchemes: { [SECURITY_SCHEME]: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: '', description: SECURITY_TEXT } } },
    securityRequirements: [{ schemes: { [SECURITY_SCHEME]: { list: [] } } }],
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills: [
      {
        id: agent.tool,
        name: agent.agent,
        description: agent.description,
        tags: ['perflow', 'agent'],
        examples: [],
        inputModes: ['text/plain'],
        outputModes: OUTPUT_MODES,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** The card as a v0.3 client reads it (with the v1.0 interfaces embedded, as the A2A SDK serves it). */
export function legacyCardJson(agent: OfferedAgent, baseUrl: string): Record<string, unknown> {
  const v1 = cardJson(agent, baseUrl);
  return {
    protocolVersion: '0.3.0',
    name: v1.name,
    description: v1.description,
    version: v1.version,
    url: `${baseUrl}${agentPath(agent)}`,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: `${baseUrl}${agentPath(agent)}`, transport: 'JSONRPC' },
      { url: `${baseUrl}${agentPath(agent)}`, transport: 'HTTP+JSON' },
    ],
    capabilities: { streaming: true, pushNotifications: true },
    securitySchemes: { [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', description: SECURITY_TEXT } },
    security: [{ [SECURITY_SCHEME]: [] }],
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills: [{ id: agent.tool, name: agent.agent, description: agent.description, tags: ['perflow', 'agent'], inputModes: ['text/plain'], outputModes: OUTPUT_MODES }],
    supportedInterfaces: v1.supportedInterfaces,
  };
}

/** The card as the A2A SDK's request handler holds it. */
export const handlerCard = (agent: OfferedAgent, baseUrl: string): AgentCard => AgentCard.fromJSON(cardJson(agent, baseUrl));
