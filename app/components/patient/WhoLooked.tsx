import type { AuditEntry } from "../../types";
import { timesWithZone } from "../ui/format";

/** One look at the patient's record, as the audit holds it (server/audit/access-log.ts). */
export type Look = Pick<AuditEntry, "id" | "actor" | "action" | "outcome" | "timestamp">;

const WHAT: Record<string, string> = {
  "patient.page.read": "opened your record",
  "patient.profile.read": "read your record",
  "patient.insights.read": "read the summary of your record",
  "patient.research.read": "read your research consents",
  "graph.node.read": "looked you up in the knowledge graph",
  "graph.read": "saw your record in a sample of the knowledge graph",
  "graph.expand.read": "saw your record around a node of the knowledge graph",
};

/**
 * "Who looked at your record" on the patient's own page (EHDS Art. 9(2): the information on who
 * accessed a person's health data). Their own looks are not listed: they are not logged.
 */
export function WhoLooked({ looks }: { looks: Look[] }) {
  return (
    <section aria-labelledby="who-looked-title" data-testid="who-looked" className="card">
      <h2 id="who-looked-title">Who looked at your record</h2>
      {looks.length === 0 ? (
        <p>No one but you has looked at your record yet.</p>
      ) : (
        <table>
          <caption>The latest {looks.length} looks at your record by others, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {looks.map((l) => (
              <tr key={l.id} data-testid="who-looked-entry">
                <td>
                  <time dateTime={l.timestamp}>{`${l.timestamp.slice(0, 19).replace("T", " ")} UTC`}</time>
                </td>
                <td>{l.actor}</td>
                <td>{WHAT[l.action] ?? l.action}</td>
                <td>{timesWithZone(l.outcome)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
