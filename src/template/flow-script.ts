/**
 * Reads a JavaScript `flow:` when the template is loaded, without running it: syntax errors with
 * their place, the protocol functions it calls, and the `http(…)` calls whose block is written as a
 * literal (checked against the template's blocks). acorn parses here because template loading is
 * synchronous and has to say where a flow is wrong; the flow runs later in a sandboxed engine.
 */
import { type Node, parse } from 'acorn';

/** nuclei's protocol functions in a flow; keyhole runs `http` only. */
export const FLOW_PROTOCOLS = [
  'http',
  'dns',
  'tcp',
  'network',
  'ssl',
  'file',
  'headless',
  'websocket',
  'whois',
  'code',
  'javascript',
  'offlinehttp',
] as const;

export type FlowProtocol = (typeof FLOW_PROTOCOLS)[number];

/** One protocol call in the flow; `refs` holds the arguments written as literals. */
export interface FlowCall {
  readonly protocol: FlowProtocol;
  /** Offset of the call in the flow source. */
  readonly offset: number;
  /** Literal arguments as nuclei reads them (`String(arg)`), undefined when any is computed. */
  readonly refs: readonly string[] | undefined;
}

export type FlowScriptAnalysis =
  | { readonly kind: 'syntax-error'; readonly offset: number; readonly message: string }
  | { readonly kind: 'ok'; readonly calls: readonly FlowCall[] };

export function analyseFlowScript(source: string): FlowScriptAnalysis {
  let program: Node;
  try {
    program = parse(source, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      // nuclei runs the flow as a script; keyhole also lets it end early with `return`.
      allowReturnOutsideFunction: true,
    });
  } catch (error) {
    const { pos, message } = error as SyntaxError & { pos?: number };
    return {
      kind: 'syntax-error',
      offset: typeof pos === 'number' ? pos : 0,
      message: message.replace(/\s*\(\d+:\d+\)$/, ''),
    };
  }
  const calls: FlowCall[] = [];
  visit(program, (node) => {
    const call = protocolCall(node);
    if (call !== undefined) calls.push(call);
  });
  return { kind: 'ok', calls };
}

function protocolCall(node: Node): FlowCall | undefined {
  if (node.type !== 'CallExpression') return undefined;
  const { callee, arguments: args } = node as unknown as {
    callee: Node & { name?: string };
    arguments: (Node & { value?: unknown })[];
  };
  if (callee.type !== 'Identifier' || !isProtocol(callee.name)) return undefined;
  const literal = args.every(
    (arg) => arg.type === 'Literal' && (typeof arg.value === 'string' || typeof arg.value === 'number'),
  );
  return {
    protocol: callee.name,
    offset: node.start,
    refs: literal ? args.map((arg) => String(arg.value)) : undefined,
  };
}

function isProtocol(name: string | undefined): name is FlowProtocol {
  return (FLOW_PROTOCOLS as readonly (string | undefined)[]).includes(name);
}

/** Calls `fn` for every node of the tree (acorn nodes are plain objects with a `type`). */
function visit(node: Node, fn: (node: Node) => void): void {
  fn(node);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) visit(item, fn);
    } else if (isNode(value)) visit(value, fn);
  }
}

function isNode(value: unknown): value is Node {
  return (
    typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
  );
}
