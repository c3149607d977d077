/** the mark after the label of a required field (the share and onboarding forms) */
export const requiredMark = (
  <>
    {" "}
    <span className="required" aria-hidden>
      *
    </span>
  </>
);
