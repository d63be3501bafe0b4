// Builds DOM nodes from data without ever parsing it as HTML: attributes go through
// setAttribute and text through text nodes, so every value is escaped by construction.

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined>;

/** `el('button', { testid: 'pause', type: 'button' }, 'Pause')`; `testid` is data-testid. */
export function el<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[Tag] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    node.setAttribute(
      name === 'testid' ? 'data-testid' : name,
      value === true ? '' : String(value),
    );
  }
  node.append(...children.filter((child): child is Node | string => Boolean(child)));
  return node;
}

/** Replaces every child of `node`. */
export function fill(node: Element, ...children: Child[]): void {
  node.replaceChildren(...children.filter((child): child is Node | string => Boolean(child)));
}

/** A status badge, coloured by status through CSS. */
export const badge = (status: string, testid?: string): HTMLElement =>
  el('span', { class: `badge badge-${status}`, testid }, status);
