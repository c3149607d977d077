import type { LoaderFunctionArgs } from "@remix-run/node";
import type { SessionUser } from "../../../server/auth/user";
import { pick } from "../../lib/pick";

type Context = LoaderFunctionArgs["context"];

/**
 * The applicant's page data (/applications): their applications, the access body's open
 * questions, data requests, results and permits, with the catalogue's datasets and the purposes
 * for the forms. Only the fields the page shows.
 */
export async function applicantPage(user: SessionUser, services: Context["services"]) {
  const ab = services.accessBody;
  const [apps, irs, requests, results, permits, datasets] = await Promise.all([
    ab.listApplications(user),
    ab.listInformationRequests(user, { state: "OPEN" }),
    ab.listDataRequests(user),
    ab.listResults(user),
    ab.listPermits(user),
    services.catalogue.list(),
  ]);
  return {
    organisation: user.organisation,
    applications: apps
      .map((a) => ({ ...pick(a, "id title state receivedDate decision permitId"), clock: a.clockView }))
      .sort((a, b) => b.receivedDate.localeCompare(a.receivedDate) || b.id.localeCompare(a.id)),
    informationRequests: irs.map((i) =>
      pick(i, "id applicationId applicationTitle questions dueDate daysLeft overdue"),
    ),
    requests: requests.map((r) => pick(r, "id title state receivedDate dueDate answer decision")),
    results: results.map((r) =>
      pick(r, "id title state permitId dataRequestId publicationDueDate daysLeft overdue check publication"),
    ),
    permits: permits.map((p) => ({ ...pick(p, "id state validUntil"), datasets: p.datasetTitles })),
    answeredRequests: requests
      .filter((r) => r.state === "ANSWERED")
      .map((r) => ({ id: r.id, title: r.title })),
    datasets: datasets
      .map((d) => ({ id: d.id, title: d.title, publisher: d.publisher ?? "" }))
      .sort((a, b) => a.title.localeCompare(b.title)),
    purposes: ab.purposes.map((p) => ({ code: p.code, label: `${p.label} (${p.point})` })),
  };
}
