/** CalculatorTool: safe arithmetic (+ - * / % ^, parentheses, decimals), parsed, never eval'd. */
import { z } from 'zod';
import type { Tool } from './tool';

const CalculatorInput = z.object({
  expression: z.string().min(1).describe('An arithmetic expression, e.g. "(12 + 30) * 2 / 7"'),
});

export function evaluate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?|[-+*/%^()]|\S/g) ?? [];
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => tokens[pos++];
  const fail = (msg: string): never => {
    throw new Error(`cannot evaluate "${expression}": ${msg}`);
  };
  const primary = (): number => {
    const t = next();
    if (t === undefined) return fail('unexpected end');
    if (t === '(') {
      const v = sum();
      if (next() !== ')') fail('missing )');
      return v;
    }
    if (t === '-') return -primary();
    if (t === '+') return primary();
    if (/^\d/.test(t)) return Number(t);
    return fail(`unexpected "${t}"`);
  };
  const power = (): number => {
    const base = primary();
    if (peek() === '^') {
      next();
      return base ** power();
    }
    return base;
  };
  const product = (): number => {
    let v = power();
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const op = next();
      const r = power();
      if ((op === '/' || op === '%') && r === 0) fail('division by zero');
      v = op === '*' ? v * r : op === '/' ? v / r : v % r;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (peek() === '+' || peek() === '-') v = next() === '+' ? v + product() : v - product();
    return v;
  };
  const value = sum();
  if (pos < tokens.length) fail(`unexpected "${tokens[pos]}"`);
  return value;
}

export const calculatorTool: Tool<z.infer<typeof CalculatorInput>> = {
  type: 'CalculatorTool',
  description:
    'Evaluates an arithmetic expression exactly and returns the number. Supports + - * / % ^ (power), parentheses and decimals. Use it for any counting, sum, ratio or percentage instead of computing in your head.',
  input: CalculatorInput,
  async run({ expression }) {
    return String(evaluate(expression));
  },
};
