import { Form, useNavigation } from "@remix-run/react";
import { useId, type ReactNode } from "react";
import {
  CONFORMS_TO_SUGGESTIONS,
  DATASET_TYPE_SUGGESTIONS,
  LEGAL_BASIS_SUGGESTIONS,
  LICENSE_SUGGESTIONS,
  type PublishField,
  type PublishResult,
  type PublishValues,
} from "./publish";
import { AppLink } from "../ui/app-link";
import { optionList } from "../route-kit/options";
import { THEME_OPTIONS } from "./filters";

/**
 * "Publish dataset": a plain POST form (works without JavaScript). The browser's own validation
 * is off (noValidate) so that every rule is the service's, and its message is shown next to the
 * field it is about and in an alert above the form.
 */
export function PublishForm({
  result,
  defaults,
  cancelTo,
  purposes,
}: {
  result?: PublishResult;
  defaults: PublishValues;
  cancelTo: string;
  /** the purposes of secondary use, EHDS Art. 53(1), as the access body lists them (from the loader) */
  purposes: { value: string; label: string }[];
}) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formMethod?.toUpperCase() === "POST";
  const values: PublishValues = result?.values ?? defaults;
  const uid = useId();
  const errorId = `${uid}-error`;
  const ctx = { uid, result };

  return (
    <Form
      method="post"
      noValidate
      className="publish-form"
      data-testid="publish-form"
      aria-describedby={result ? errorId : undefined}
    >
      <h2>Publish a dataset</h2>
      <p className="muted">
        Describe the dataset with HealthDCAT-AP metadata. Fields marked <span aria-hidden>*</span>
        <span className="visually-hidden">as required</span> are required.
      </p>
      {result ? (
        <p id={errorId} className="notice error" role="alert" data-testid="publish-error">
          {result.error}
        </p>
      ) : null}
      <input type="hidden" name="intent" value="publish" />
      <Field
        ctx={ctx}
        name="id"
        label="Identifier (optional)"
        hint="Left empty, it is made from the title (\u201cDiabetes cohort 2025\u201d becomes diabetes-cohort-2025). Letters, digits, '.', '_', ':' and '-'; unique in the catalogue."
      >
        {(p) => <input {...p} type="text" defaultValue={values.id} autoComplete="off" spellCheck={false} />}
      </Field>
      <Field ctx={ctx} name="title" label="Title" required>
        {(p) => <input {...p} type="text" defaultValue={values.title} />}
      </Field>
      <Field ctx={ctx} name="description" label="Description">
        {(p) => <textarea {...p} rows={4} defaultValue={values.description} />}
      </Field>
      <Field ctx={ctx} name="publisher" label="Publisher">
        {(p) => <input {...p} type="text" defaultValue={values.publisher} />}
      </Field>
      <Field ctx={ctx} name="theme" label="Theme" hint="The EU data theme (HealthDCAT-AP dcat:theme)">
        {(p) => (
          <select {...p} defaultValue={values.theme ?? ""}>
            {choices("No theme", THEME_OPTIONS, values.theme)}
          </select>
        )}
      </Field>
      <Field ctx={ctx} name="license" label="Licence (URI)">
        {(p) => (
          <input
            {...p}
            type="url"
            list={`${uid}-licenses`}
            defaultValue={values.license}
            placeholder="https://…"
          />
        )}
      </Field>
      <datalist id={`${uid}-licenses`}>
        {LICENSE_SUGGESTIONS.map((v) => (
          <option key={v} value={v} />
        ))}
      </datalist>
      <Field ctx={ctx} name="datasetType" label="Dataset type (URI)">
        {(p) => (
          <input
            {...p}
            type="url"
            list={`${uid}-types`}
            defaultValue={values.datasetType}
            placeholder="http://publications.europa.eu/resource/authority/dataset-type/…"
          />
        )}
      </Field>
      <datalist id={`${uid}-types`}>
        {DATASET_TYPE_SUGGESTIONS.map((v) => (
          <option key={v} value={v} />
        ))}
      </datalist>
      <Field ctx={ctx} name="legalBasis" label="Legal basis">
        {(p) => (
          <select {...p} defaultValue={values.legalBasis ?? ""}>
            {choices(
              "Not stated",
              LEGAL_BASIS_SUGGESTIONS.map((v) => ({ value: v, label: v })),
              values.legalBasis,
            )}
          </select>
        )}
      </Field>
      <Field ctx={ctx} name="purpose" label="Purpose" hint="A purpose of secondary use, EHDS Art. 53(1)">
        {(p) => (
          <select {...p} defaultValue={values.purpose ?? ""}>
            {choices("Not stated", purposes, values.purpose)}
          </select>
        )}
      </Field>
      <Field
        ctx={ctx}
        name="recordCount"
        label="Record count (declared)"
        hint="As you state it: the catalogue shows it as declared by the publisher, not as counted."
      >
        {(p) => (
          <input
            {...p}
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
            defaultValue={values.recordCount}
          />
        )}
      </Field>
      <Field
        ctx={ctx}
        name="populationCoverage"
        label="Population coverage"
        hint="Who the records describe, e.g. adults treated in Berlin 2019–2025"
      >
        {(p) => <input {...p} type="text" defaultValue={values.populationCoverage} />}
      </Field>
      <Field
        ctx={ctx}
        name="conformsTo"
        label="Conforms to"
        hint={`One URI per line, e.g. ${CONFORMS_TO_SUGGESTIONS[0]}`}
      >
        {(p) => <textarea {...p} rows={3} defaultValue={values.conformsTo} spellCheck={false} />}
      </Field>
      <Field ctx={ctx} name="keywords" label="Keywords" hint="Separated by commas">
        {(p) => <input {...p} type="text" defaultValue={values.keywords} />}
      </Field>
      <fieldset className="checks">
        <legend>Data protection</legend>
        <label className="check">
          <input
            type="checkbox"
            name="personalData"
            defaultChecked={values.personalData === "on"}
            data-testid="publish-personalData"
          />
          Contains personal data
        </label>
        <label className="check">
          <input
            type="checkbox"
            name="sensitiveData"
            defaultChecked={values.sensitiveData === "on"}
            data-testid="publish-sensitiveData"
          />
          Contains sensitive (health) data
        </label>
      </fieldset>
      <div className="actions">
        <button type="submit" className="button" disabled={busy} data-testid="publish-submit">
          {busy ? "Publishing…" : "Publish dataset"}
        </button>
        <AppLink to={cancelTo} className="button ghost" data-testid="publish-cancel">
          Cancel
        </AppLink>
      </div>
    </Form>
  );
}

/**
 * A select's options: the empty choice, the vocabulary, and a value sent back that is not in it (kept,
 * so a failed submission loses nothing).
 */
function choices(empty: string, options: { value: string; label: string }[], current: string | undefined) {
  const all =
    current && !options.some((o) => o.value === current)
      ? [...options, { value: current, label: current }]
      : options;
  return optionList([{ value: "", label: empty }, ...all], (o) => [o.value, o.label]);
}

/** one labelled control with its hint and its error message, wired with aria-describedby */
function Field({
  ctx,
  name,
  label,
  hint,
  required,
  children,
}: {
  ctx: { uid: string; result?: PublishResult };
  name: PublishField;
  label: string;
  hint?: string;
  required?: boolean;
  children: (props: Record<string, unknown>) => ReactNode;
}) {
  const { uid, result } = ctx;
  const fieldError = result?.fields.find((f) => f.field === name);
  const invalid = !!fieldError;
  const hintId = hint ? `${uid}-${name}-hint` : undefined;
  const errId = `${uid}-${name}-err`;
  const describedBy = [hintId, invalid ? errId : undefined].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`field${invalid ? " invalid" : ""}`}>
      <label htmlFor={`${uid}-${name}`}>
        {label}
        {required ? (
          <span className="required" aria-hidden>
            {" "}
            *
          </span>
        ) : null}
      </label>
      {children({
        id: `${uid}-${name}`,
        name,
        "aria-invalid": invalid || undefined,
        "aria-describedby": describedBy,
        "aria-required": required || undefined,
        "data-testid": `publish-${name}`,
      })}
      {hint ? (
        <span id={hintId} className="hint">
          {hint}
        </span>
      ) : null}
      {invalid ? (
        <span id={errId} className="field-error" data-testid={`publish-error-${name}`}>
          {fieldError?.message}
        </span>
      ) : null}
    </div>
  );
}
