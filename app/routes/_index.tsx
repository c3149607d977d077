import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { LAYER_NAMES, LAYERS } from "../../server/graph/model";
import { navFor } from "../components/navigation";
import { requireUser } from "../session.server";

export const meta: MetaFunction = () => [{ title: "Overview · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const { graph } = context.services;
  const seesGraph = !user.roles.every((r) => r === "PATIENT");
  const layers = seesGraph
    ? await Promise.all(LAYERS.map(async (l) => ({ layer: l, name: LAYER_NAMES[l], nodes: await graph.countNodes([l]) })))
    : [];
  return { name: user.name, organisation: user.organisation, layers, views: navFor(user.roles).filter((v) => v.to !== "/") };
}

export default function Overview() {
  const { name, organisation, layers, views } = useLoaderData<typeof loader>();
  return (
    <section>
      <h1>Welcome, {name}</h1>
      <p className="lead">{organisation}</p>
      {layers.length ? (
        <div className="stat-grid">
          {layers.map((l) => (
            <Link key={l.layer} to={`/graph?layer=${l.layer}`} className={`card stat layer-${l.layer}`}>
              <span className="stat-label">
                {l.layer.toUpperCase()} · {l.name}
              </span>
              <span className="stat-value">{l.nodes.toLocaleString("en")}</span>
              <span className="muted">nodes</span>
            </Link>
          ))}
        </div>
      ) : null}
      <h2>Your views</h2>
      <ul className="link-list">
        {views.map((v) => (
          <li key={v.to}>
            <Link to={v.to}>{v.label}</Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
