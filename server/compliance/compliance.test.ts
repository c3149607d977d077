import { describe, expect, it } from "vitest";
import { admin, researcher, setupWith } from "../../tests/support/access-body";
import { createAccessBodyWithCompliance } from "./index";

const setup = () => setupWith(createAccessBodyWithCompliance);

describe("compliance over the access body's records", () => {
  it("summarises the compliance chain per participant and runs the record probes", async () => {
    const { ab } = await setup();
    const all = await ab.compliance(admin);
    const pharmaco = all.participants.find((p) => p.displayName === "PharmaCo Research AG")!;
    const chain = pharmaco.ehds.chains.find((c) => c.permit?.id === "MEDREG-DP-2025-0001")!;
    expect(chain).toMatchObject({ status: "complete", breaksAt: null, approval: { id: "approval-0001" } });
    const pending = all.chains!.find((c) => c.approval?.id === "approval-0002")!;
    expect(pending).toMatchObject({ status: "in-progress", breaksAt: "approval" });
    const own = await ab.compliance(researcher);
    expect(own.participants.map((p) => p.displayName)).toEqual(["PharmaCo Research AG"]);
    const tck = await ab.tck({ rerun: true });
    const byId = Object.fromEntries(tck.results.map((r) => [r.id, r]));
    expect(byId["ehds.state-machines"].status).toBe("pass");
    expect(byId["ehds.audit"].status).toBe("pass");
    expect(byId["ehds.clock"].status).toBe("pass");
    expect(byId["ehds.permits"].status).toBe("pass");
    expect(byId["ehds.register-public"].status).toBe("pass");
    expect(byId["dcp.did-web"].status).toBe("pass");
    expect(byId["dsp.catalogue"].status).toBe("skip"); // not listening in a unit test
    const cached = await ab.tck({ rerun: false });
    expect(cached).toMatchObject({ cached: true, ranAt: tck.ranAt });
  });
});
