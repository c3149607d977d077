import { useLocation } from "@remix-run/react";
import { useEffect, useId, useState } from "react";
import { AppLink } from "./app-link";
import { activeNavPath } from "./app-href";
import type { NavItem } from "../../lib/navigation.server";

/** the entries grouped by task, groups in the order their first entry comes */
export function groupsOf(items: readonly NavItem[]): { group: string; items: NavItem[] }[] {
  const out: { group: string; items: NavItem[] }[] = [];
  for (const i of items) {
    const g = out.find((o) => o.group === i.group);
    if (g) g.items.push(i);
    else out.push({ group: i.group, items: [i] });
  }
  return out;
}

/**
 * The main navigation, grouped by task (explore, exchange, care, govern, operate); each group folds
 * (a `details`, open at first). On a phone the whole navigation sits behind a Menu button at the top
 * (closed at first and again after each navigation), so the page starts right below the top bar; on a
 * wider screen it is the side bar and the button is not shown.
 */
export function MainNav({ items }: { items: readonly NavItem[] }) {
  const { pathname } = useLocation();
  const current = activeNavPath(
    pathname,
    items.map((i) => i.to),
  );
  const [open, setOpen] = useState(false);
  const listId = useId();
  useEffect(() => setOpen(false), [pathname]);
  return (
    <nav className="sidenav" aria-label="Main" data-open={open ? "true" : "false"}>
      <button
        type="button"
        className="button ghost nav-toggle"
        aria-expanded={open}
        aria-controls={listId}
        data-testid="nav-toggle"
        onClick={() => setOpen((o) => !o)}
      >
        <span aria-hidden>☰</span> Menu
      </button>
      <div className="nav-groups" id={listId}>
        {groupsOf(items).map(({ group, items: entries }) => (
          <details key={group} className="nav-group" open data-testid={`nav-group-${group}`}>
            <summary>{group}</summary>
            {entries.map((i) => (
              <AppLink
                key={i.to}
                to={i.to}
                className={i.to === current ? "active" : undefined}
                aria-current={i.to === current ? "page" : undefined}
              >
                {i.label}
              </AppLink>
            ))}
          </details>
        ))}
      </div>
    </nav>
  );
}
