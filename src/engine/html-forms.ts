import { type DefaultTreeAdapterTypes, parse as parseHtml } from 'parse5';

/** A control of a form, as the page writes it. */
export interface FormControl {
  readonly tag: 'input' | 'select' | 'textarea' | 'button';
  /** Lower-cased; `text` when unset, `submit` for a button without one. */
  readonly type: string;
  readonly name: string;
  readonly id: string;
  readonly autocomplete: string;
  readonly value: string;
  readonly checked: boolean;
}

export interface HtmlForm {
  readonly id: string;
  readonly name: string;
  /** As written; empty: the page's own URL. */
  readonly action: string;
  /** Upper-cased, GET when unset. */
  readonly method: string;
  readonly enctype: string;
  readonly controls: readonly FormControl[];
}

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/**
 * The forms of a page, parsed as a browser parses HTML (parse5), each with its controls: those
 * inside it, and those outside that name it with `form="id"`.
 */
export function formsOf(html: string): HtmlForm[] {
  const document = parseHtml(html);
  const forms: { element: Element; controls: FormControl[] }[] = [];
  const byId = new Map<string, FormControl[]>();
  const visit = (node: ParentNode, owner: FormControl[] | undefined): void => {
    for (const child of node.childNodes) {
      if (!('tagName' in child)) continue;
      let inner = owner;
      if (child.tagName === 'form' && owner === undefined) {
        inner = [];
        forms.push({ element: child, controls: inner });
        const id = attribute(child, 'id');
        if (id !== '') byId.set(id, inner);
      }
      const control = controlOf(child);
      if (control !== undefined) {
        const named = attribute(child, 'form');
        const target = named === '' ? inner : (byId.get(named) ?? inner);
        target?.push(control);
      }
      visit('content' in child ? (child.content as ParentNode) : child, inner);
    }
  };
  visit(document, undefined);
  return forms.map(({ element, controls }) => ({
    id: attribute(element, 'id'),
    name: attribute(element, 'name'),
    action: attribute(element, 'action'),
    method: (attribute(element, 'method') || 'get').toUpperCase(),
    enctype: (attribute(element, 'enctype') || 'application/x-www-form-urlencoded').toLowerCase(),
    controls,
  }));
}

function controlOf(element: Element): FormControl | undefined {
  const tag = element.tagName;
  if (tag !== 'input' && tag !== 'select' && tag !== 'textarea' && tag !== 'button') return undefined;
  const defaultType = tag === 'button' ? 'submit' : tag === 'input' ? 'text' : tag;
  return {
    tag,
    type: (attribute(element, 'type') || defaultType).toLowerCase(),
    name: attribute(element, 'name'),
    id: attribute(element, 'id'),
    autocomplete: attribute(element, 'autocomplete').toLowerCase(),
    value:
      tag === 'textarea'
        ? textOf(element)
        : tag === 'select'
          ? selectedOption(element)
          : attribute(element, 'value'),
    checked: element.attrs.some((a) => a.name === 'checked'),
  };
}

function attribute(element: Element, name: string): string {
  return element.attrs.find((a) => a.name === name)?.value ?? '';
}

function textOf(element: Element): string {
  return element.childNodes.map((n) => ('value' in n && n.nodeName === '#text' ? n.value : '')).join('');
}

function selectedOption(select: Element): string {
  const options: Element[] = [];
  const collect = (node: Element) => {
    for (const child of node.childNodes)
      if ('tagName' in child) {
        if (child.tagName === 'option') options.push(child);
        else collect(child);
      }
  };
  collect(select);
  const chosen = options.find((o) => o.attrs.some((a) => a.name === 'selected')) ?? options[0];
  if (chosen === undefined) return '';
  const value = chosen.attrs.find((a) => a.name === 'value');
  return value === undefined ? textOf(chosen).trim() : value.value;
}

/** Whether a page has a password field: a login form shown (again). */
export function hasPasswordField(html: string): boolean {
  return formsOf(html).some((form) => form.controls.some((c) => c.type === 'password'));
}
