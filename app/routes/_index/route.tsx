import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { clientError } from "../../lib/api-errors.server";
import { navFor } from "../../lib/navigation.server";
import { formatNumber } from "../../components/ui/format";
import { NEXT_STEPS } from "../../components/ui/next-steps";
import type { Role } from "../../types";
import { getUser } from "../../session.server";
import { landingFacts } from "../../lib/landing.server";
import { Landing } from "../../components/landing/Landing";
import { AppLink } from "../../components/ui/app-link";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  {
    title:
      data && "landing" in data
        ? "Health Dataspace Hub · the European health data space"
        : "Overview · Health Dataspace Hub",
  },
];

/** a public page, and its description for search results (both read by app/root.tsx) */
export const handle = {
  publicPage: true,
  description:
    "A European health data space: its participants, datasets and data permits at a glance, and how secondary use of health data works.",
};

/**
 * `/`: the public landing page for a visitor who is not signed in (app/components/landing); each
 * persona's home once signed in: the layers it works with, node and link counts, and the signals
 * it cares about (server/overview).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return { landing: await landingFacts(context.services) };
  const { overview } = context.services;
  const views = navFor(user.roles).filter((v) => v.to !== "/");
  const persona = new URL(request.url).searchParams.get("persona");
  let notice: string | null = null;
  let o;
  try {
    o = await overview.forUser(user, persona, context.services);
  } catch (e) {
    notice = clientError(e).message;
    o = await overview.forUser(user, null, context.services);
  }
  // the view does not show when the overview was made (the API's answer does): left out, so the
  // same figures make the same page (server/http/render-cache.ts)
  const { generatedAt: _shownByTheApiOnly, ...shown } = o;
  return {
    name: user.name,
    organisation: user.organisation,
    views,
    layers: o.layers,
    overview: shown,
    notice,
  };
}

export default function Home() {
  const data = useLoaderData<typeof loader>();
  return "landing" in data && data.landing ? (
    <Landing facts={data.landing} />
  ) : (
    <Overview {...(data as HomeData)} />
  );
}

type HomeData = Exclude<ReturnType<typeof useLoaderData<typeof loader>>, { landing: object }>;

function Overview({ name, organisation, layers, views, overview, notice }: HomeData) {
  // next steps of the persona shown, kept to views this user can open
  const opens = (href: string) => {
    const to = href.split(/[?#]/)[0];
    return views.some((v) => to === v.to || to.startsWith(`${v.to}/`));
  };
  const steps = (NEXT_STEPS[overview.persona.role as Role] ?? []).filter((n) => opens(n.to));
  const signals = overview.signals;
  return (
    <section data-testid="overview">
      <div className="page-head">
        <div>
          <h1>Welcome, {name}</h1>
          <p className="lead">
            {organisation} · <span data-testid="persona">{overview.persona.label}</span>:{" "}
            {overview.persona.focus}
          </p>
        </div>
      </div>
      {overview.personas.length > 1 ? (
        <nav className="tabs ins-personas" data-testid="persona-tabs" aria-label="Persona">
          {overview.personas.map((p) => (
            <AppLink
              key={p.role}
              to={`/?persona=${p.role}`}
              className={p.role === overview.persona.role ? "active" : undefined}
            >
              {p.label}
            </AppLink>
          ))}
        </nav>
      ) : null}
      {notice ? <p className="notice">{notice}</p> : null}

      {signals.length ? (
        <div className="ins-signals" data-testid="signals">
          {signals.map((s) => {
            const body = (
              <>
                <span className="stat-label">{s.label}</span>
                <span className="stat-value">{formatNumber(s.value)}</span>
                {s.detail ? <span className="muted small">{s.detail}</span> : null}
              </>
            );
            const cls = `card stat ins-signal ins-tone-${s.value > 0 ? s.tone : "quiet"}`;
            return s.href && opens(s.href) ? (
              <AppLink key={s.id} to={s.href} className={cls} data-testid={`signal-${s.id}`}>
                {body}
              </AppLink>
            ) : (
              <div key={s.id} className={cls} data-testid={`signal-${s.id}`}>
                {body}
              </div>
            );
          })}
        </div>
      ) : null}
      {overview.notes.map((n) => (
        <p key={n} className="small muted" data-testid="overview-note">
          {n}
        </p>
      ))}

      {layers.length ? (
        <>
          <h2>Your layers</h2>
          <div className="stat-grid">
            {layers.map((l) => (
              <AppLink
                key={l.layer}
                to={`/graph?layer=${l.layer}`}
                className={`card stat layer-${l.layer}`}
                data-testid={`layer-${l.layer}`}
              >
                <span className="stat-label">
                  {l.layer.toUpperCase()} · {l.name}
                </span>
                <span className="stat-value">{l.nodes.toLocaleString("en")}</span>
                <span className="muted">nodes{` · ${l.links.toLocaleString("en")} links`}</span>
              </AppLink>
            ))}
          </div>
          <p className="small muted" data-testid="overview-totals">
            {formatNumber(overview.totals.nodes)} nodes and {formatNumber(overview.totals.links)} links in
            your layers, {formatNumber(overview.totals.crossLayerLinks)} of them between layers.
            {overview.persona.graph && opens("/graph") ? (
              <>
                {" "}
                <AppLink to={`/graph?persona=${overview.persona.graph}`} data-testid="overview-graph-scope">
                  Show these layers in the graph
                </AppLink>{" "}
                (the graph opens on every layer you may read).
              </>
            ) : null}
          </p>
        </>
      ) : null}
      {steps.length ? (
        <>
          <h2>Next steps</h2>
          <ul className="next-steps" data-testid="next-steps">
            {steps.map((n) => (
              <li key={n.to} className="card">
                <AppLink to={n.to}>{n.label}</AppLink>
                <span className="muted small">{n.why}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
