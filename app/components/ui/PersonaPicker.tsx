import type { personaCards } from "../../lib/personas.server";
import { roleLabel } from "./labels";

/**
 * The demonstration personas as cards, each a link that starts that persona's session: the
 * embedded identity provider's sign-in (live), or the persona's app (static mode, `/as/<persona>`).
 * Used by the landing page, the sign-in page and static mode's persona chooser.
 */
export function PersonaPicker({
  personas,
  hrefOf,
  showPassword = false,
}: {
  personas: ReturnType<typeof personaCards>;
  hrefOf: (username: string) => string;
  /** the embedded provider's accounts: the password of each is its username */
  showPassword?: boolean;
}) {
  return (
    <ul className="persona-grid" data-testid="persona-picker">
      {personas.map((p) => (
        <li key={p.username} className="card persona">
          <a href={hrefOf(p.username)} data-testid={`persona-${p.username}`}>
            <strong>{p.name}</strong>
            <span className="muted">{p.organisation}</span>
            {p.roles?.length ? (
              <span className="tags">
                {p.roles.map((r) => (
                  <span key={r} className="tag">
                    {roleLabel(r)}
                  </span>
                ))}
              </span>
            ) : null}
            <span>{p.description}</span>
            {showPassword ? (
              <code>
                {p.username} / {p.username}
              </code>
            ) : null}
          </a>
        </li>
      ))}
    </ul>
  );
}
