import { createRequire } from 'node:module';
import { DOMImplementation, DOMParser, type Document, type Node } from '@xmldom/xmldom';
import { type DefaultTreeAdapterTypes, parse as parseHtml } from 'parse5';

/**
 * XPath 1.0 over responses, as nuclei's xpath matchers and extractors use antchfx's htmlquery and
 * xmlquery: a part starting with `<?xml` is read as XML, anything else as HTML with the HTML5
 * parsing algorithm (parse5; Go's x/net/html implements the same algorithm), which makes sense of
 * real-world markup: unclosed tags, stray end tags, attributes without quotes.
 */

interface ParsedXPath {
  select(options: { node: Node; allowAnyNamespaceForNoPrefix?: boolean }): Node[];
}
interface XPathLibrary {
  parse(expression: string): ParsedXPath;
}
// Loaded through require: the package's type declarations pull the browser DOM types into the
// whole program.
const xpath = createRequire(import.meta.url)('xpath') as XPathLibrary;

export class XPathSyntaxError {
  constructor(
    readonly expression: string,
    readonly reason: string,
  ) {}

  get message(): string {
    return `invalid xpath expression ${JSON.stringify(this.expression)}: ${this.reason}`;
  }
}

export class XPathQuery {
  private constructor(
    readonly expression: string,
    private readonly parsed: ParsedXPath,
  ) {}

  static compile(expression: string): XPathQuery | XPathSyntaxError {
    try {
      return new XPathQuery(expression, xpath.parse(expression));
    } catch (error) {
      return new XPathSyntaxError(expression, error instanceof Error ? error.message : String(error));
    }
  }

  /** The selected nodes; none when the expression fails on this document or selects no nodes. */
  select(document: MarkupDocument): SelectedNode[] {
    try {
      const nodes = this.parsed.select({ node: document.root, allowAnyNamespaceForNoPrefix: document.isXml });
      return Array.isArray(nodes) ? nodes.map((node) => new SelectedNode(node)) : [];
    } catch {
      return [];
    }
  }
}

export interface MarkupDocument {
  readonly root: Node;
  readonly isXml: boolean;
}

/** Reads a part as nuclei does; undefined when it is XML that does not parse. */
export function parseMarkup(text: string): MarkupDocument | undefined {
  if (text.startsWith('<?xml')) {
    const root = parseXml(text);
    return root === undefined ? undefined : { root, isXml: true };
  }
  return { root: htmlToDom(parseHtml(text)), isXml: false };
}

export class SelectedNode {
  constructor(private readonly node: Node) {}

  /** htmlquery's `InnerText`: the text of all descendant text nodes, comments left out. */
  innerText(): string {
    if (this.node.nodeType === NODE.attribute) return this.node.nodeValue ?? '';
    return this.node.textContent ?? '';
  }

  /**
   * htmlquery's `SelectAttr`: the value of the attribute of that exact name, "" when the node has
   * none (text and attribute nodes have none).
   */
  attribute(name: string): string {
    if (this.node.nodeType !== NODE.element) return '';
    const element = this.node as Node & { getAttributeNode(name: string): { value: string } | null };
    return element.getAttributeNode(name)?.value ?? '';
  }
}

const NODE = { element: 1, attribute: 2 } as const;

function parseXml(text: string): Node | undefined {
  try {
    const parser = new DOMParser({
      onError: (level: string, message: string) => {
        if (level === 'fatalError') throw new Error(message);
      },
    });
    return parser.parseFromString(text, 'text/xml') as unknown as Node;
  } catch {
    return undefined;
  }
}

type Parse5Node = DefaultTreeAdapterTypes.Node;
type Parse5Parent = DefaultTreeAdapterTypes.ParentNode;

/**
 * Copies parse5's tree into a DOM the XPath engine walks. Elements get no namespace, so that
 * unprefixed names in expressions match them as in htmlquery; names that are not valid XML names
 * (parse5 accepts `<a"b>`) keep their children in the parent.
 */
function htmlToDom(tree: DefaultTreeAdapterTypes.Document): Node {
  const document: Document = new DOMImplementation().createDocument(null, '');
  const pending: [Parse5Parent, Node][] = [[tree, document as unknown as Node]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [source, target] = next;
    const children = 'content' in source && source.nodeName === 'template' ? source.content.childNodes : [];
    for (const child of [...source.childNodes, ...children]) {
      const copy = copyNode(document, child);
      if (copy === undefined) {
        if ('childNodes' in child) pending.push([child, target]);
        continue;
      }
      target.appendChild(copy);
      if ('childNodes' in child && copy.nodeType === NODE.element) pending.push([child, copy]);
    }
  }
  return document as unknown as Node;
}

function copyNode(document: Document, node: Parse5Node): Node | undefined {
  try {
    if (node.nodeName === '#text')
      return document.createTextNode((node as DefaultTreeAdapterTypes.TextNode).value);
    if (node.nodeName === '#comment')
      return document.createComment((node as DefaultTreeAdapterTypes.CommentNode).data);
    if (!('tagName' in node)) return undefined;
    const element = document.createElement(node.tagName);
    for (const attribute of node.attrs) {
      const name = attribute.prefix === undefined ? attribute.name : `${attribute.prefix}:${attribute.name}`;
      try {
        element.setAttribute(name, attribute.value);
      } catch {
        // An attribute name XML does not allow (`@click`, `"x"`) cannot be selected by XPath anyway.
      }
    }
    return element as unknown as Node;
  } catch {
    return undefined;
  }
}
