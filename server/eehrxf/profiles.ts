/**
 * The European electronic health record exchange format (EEHRxF, EHDS Art. 14–15): its priority
 * categories and the HL7 Europe / IPS FHIR profiles that carry them, with the elements each
 * profile needs, written as checks on the properties of our FHIR layer (l3). A check marked
 * `required` counts for conformance (cardinality 1.. in the profile, or required by the EHDS
 * logical model); `mustSupport` elements are reported but do not decide conformance.
 *
 * Canonical URLs follow the HL7 Europe implementation guides (hl7.eu/fhir/…) and the
 * International Patient Summary (hl7.org/fhir/uv/ips); the European guides are drafts or
 * trial-use, so their canonicals may still move.
 */
import type { Properties } from "../graph";

export interface ElementCheck {
  path: string;
  required: boolean;
  test: (p: Properties) => boolean;
  note?: string;
}

export interface ProfileDef {
  id: string;
  title: string;
  canonical: string;
  resourceType: string;
  /** the graph label holding such resources (null: the graph has no such resources) */
  label: string | null;
  /** which resources of the label the profile applies to */
  applies?: (p: Properties) => boolean;
  elements: ElementCheck[];
}

export interface CategoryDef {
  id: string;
  title: string;
  legalBasis: string;
  description: string;
  guides: { name: string; url: string }[];
  profiles: ProfileDef[];
  /** what a complete document of this category needs, in words */
  readiness: string;
}

const has = (k: string) => (p: Properties) => p[k] !== undefined && p[k] !== null && p[k] !== "";
const eq =
  (k: string, ...v: string[]) =>
  (p: Properties) =>
    typeof p[k] === "string" && v.includes(p[k] as string);
const system = (k: string, uri: string) => (p: Properties) => has("code")(p) && p[k] === uri;

const SNOMED = "http://snomed.info/sct";
const LOINC = "http://loinc.org";
const UCUM = "http://unitsofmeasure.org";
const RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm";

const PATIENT_ELEMENTS: ElementCheck[] = [
  { path: "Patient.identifier", required: true, test: has("resourceId") },
  { path: "Patient.name.family", required: true, test: has("familyName") },
  { path: "Patient.name.given", required: true, test: has("givenName") },
  { path: "Patient.gender", required: true, test: has("gender") },
  { path: "Patient.birthDate", required: true, test: has("birthDate") },
  { path: "Patient.address.country", required: false, test: has("country") },
];

export const CATEGORIES: CategoryDef[] = [
  {
    id: "patient-summary",
    title: "Patient summary",
    legalBasis: "EHDS Art. 14(1)(a)",
    description:
      "The essential data for safe cross-border care: problems, medication, allergies, with the patient's identity.",
    guides: [
      { name: "HL7 Europe Patient Summary (EPS)", url: "http://hl7.eu/fhir/eps" },
      { name: "International Patient Summary (IPS) 2.0", url: "http://hl7.org/fhir/uv/ips" },
    ],
    profiles: [
      {
        id: "patient-eu-core",
        title: "Patient (EU core)",
        canonical: "http://hl7.eu/fhir/base/StructureDefinition/patient-eu-core",
        resourceType: "Patient",
        label: "Patient",
        elements: PATIENT_ELEMENTS,
      },
      {
        id: "condition-eu-eps",
        title: "Condition (EPS problem)",
        canonical: "http://hl7.eu/fhir/eps/StructureDefinition/condition-eu-eps",
        resourceType: "Condition",
        label: "Condition",
        elements: [
          { path: "Condition.code (SNOMED CT)", required: true, test: system("codeSystem", SNOMED) },
          { path: "Condition.subject", required: true, test: has("patientId") },
          { path: "Condition.clinicalStatus", required: false, test: has("clinicalStatus") },
          { path: "Condition.verificationStatus", required: false, test: has("verificationStatus") },
          { path: "Condition.onset[x]", required: false, test: has("onsetDate") },
          { path: "Condition.category", required: false, test: has("category") },
        ],
      },
      {
        id: "MedicationRequest-uv-ips",
        title: "MedicationRequest (IPS medication summary)",
        canonical: "http://hl7.org/fhir/uv/ips/StructureDefinition/MedicationRequest-uv-ips",
        resourceType: "MedicationRequest",
        label: "MedicationRequest",
        elements: [
          { path: "MedicationRequest.medication[x]", required: true, test: has("code") },
          { path: "MedicationRequest.subject", required: true, test: has("patientId") },
          { path: "MedicationRequest.status", required: true, test: has("status") },
          { path: "MedicationRequest.authoredOn", required: false, test: has("authoredOn") },
          { path: "MedicationRequest.dosageInstruction.text", required: false, test: has("dosageText") },
        ],
      },
      {
        id: "AllergyIntolerance-uv-ips",
        title: "AllergyIntolerance (IPS)",
        canonical: "http://hl7.org/fhir/uv/ips/StructureDefinition/AllergyIntolerance-uv-ips",
        resourceType: "AllergyIntolerance",
        label: null,
        elements: [
          { path: "AllergyIntolerance.code", required: true, test: () => false },
          { path: "AllergyIntolerance.patient", required: true, test: () => false },
        ],
      },
    ],
    readiness:
      "a conformant Patient with at least one problem, a medication entry and an allergies section (IPS requires the section, if only to state no known allergies)",
  },
  {
    id: "eprescription",
    title: "ePrescription and eDispensation",
    legalBasis: "EHDS Art. 14(1)(b)",
    description:
      "Prescriptions that can be dispensed in another Member State, and the dispensation reported back.",
    guides: [
      { name: "HL7 Europe Medication Prescription and Dispense (MPD)", url: "http://hl7.eu/fhir/mpd" },
    ],
    profiles: [
      {
        id: "MedicationRequest-eu-mpd",
        title: "MedicationRequest (EU prescription)",
        canonical: "http://hl7.eu/fhir/mpd/StructureDefinition/MedicationRequest-eu-mpd",
        resourceType: "MedicationRequest",
        label: "MedicationRequest",
        elements: [
          { path: "MedicationRequest.status", required: true, test: has("status") },
          { path: "MedicationRequest.intent", required: true, test: eq("intent", "order", "original-order") },
          {
            path: "MedicationRequest.medication[x] (coded)",
            required: true,
            test: (p) => system("codeSystem", RXNORM)(p) || has("atcCode")(p),
          },
          {
            path: "MedicationRequest.medication[x] ATC classification",
            required: false,
            test: has("atcCode"),
            note: "Member States exchange products by ATC and EMA identifiers; RxNorm is not a European vocabulary",
          },
          { path: "MedicationRequest.subject", required: true, test: has("patientId") },
          { path: "MedicationRequest.authoredOn", required: true, test: has("authoredOn") },
          {
            path: "MedicationRequest.requester (prescriber)",
            required: true,
            test: has("requester"),
            note: "the prescriber is not recorded in the source data",
          },
          { path: "MedicationRequest.dosageInstruction", required: false, test: has("dosageText") },
          {
            path: "MedicationRequest.dispenseRequest.expectedSupplyDuration",
            required: false,
            test: has("daysSupply"),
          },
        ],
      },
      {
        id: "MedicationDispense-eu-mpd",
        title: "MedicationDispense (EU dispensation)",
        canonical: "http://hl7.eu/fhir/mpd/StructureDefinition/MedicationDispense-eu-mpd",
        resourceType: "MedicationDispense",
        label: null,
        elements: [{ path: "MedicationDispense.authorizingPrescription", required: true, test: () => false }],
      },
    ],
    readiness: "a conformant prescription (MedicationRequest-eu-mpd) per medication order",
  },
  {
    id: "laboratory",
    title: "Laboratory results",
    legalBasis: "EHDS Art. 14(1)(c)",
    description: "Laboratory reports with coded tests, values, units and reference ranges.",
    guides: [{ name: "HL7 Europe Laboratory Report", url: "http://hl7.eu/fhir/laboratory" }],
    profiles: [
      {
        id: "Observation-resultslab-eu-lab",
        title: "Observation (laboratory result)",
        canonical: "http://hl7.eu/fhir/laboratory/StructureDefinition/Observation-resultslab-eu-lab",
        resourceType: "Observation",
        label: "Observation",
        applies: eq("category", "laboratory"),
        elements: [
          { path: "Observation.status", required: true, test: has("status") },
          { path: "Observation.category = laboratory", required: true, test: eq("category", "laboratory") },
          { path: "Observation.code (LOINC)", required: true, test: system("codeSystem", LOINC) },
          { path: "Observation.subject", required: true, test: has("patientId") },
          { path: "Observation.effective[x]", required: true, test: has("effectiveDateTime") },
          {
            path: "Observation.value[x] with UCUM unit",
            required: true,
            test: (p) => typeof p.value === "number" && p.unitSystem === UCUM,
          },
          {
            path: "Observation.referenceRange",
            required: false,
            test: (p) => has("referenceRangeLow")(p) || has("referenceRangeHigh")(p),
          },
          { path: "Observation.interpretation", required: false, test: has("interpretation") },
          {
            path: "Observation.performer",
            required: false,
            test: has("performer"),
            note: "the performing laboratory is not recorded in the source data",
          },
        ],
      },
      {
        id: "DiagnosticReport-eu-lab",
        title: "DiagnosticReport (laboratory report)",
        canonical: "http://hl7.eu/fhir/laboratory/StructureDefinition/DiagnosticReport-eu-lab",
        resourceType: "DiagnosticReport",
        label: null,
        elements: [{ path: "DiagnosticReport.result", required: true, test: () => false }],
      },
    ],
    readiness: "laboratory Observations grouped into a DiagnosticReport and a Composition (Bundle-eu-lab)",
  },
  {
    id: "imaging",
    title: "Medical imaging studies and reports",
    legalBasis: "EHDS Art. 14(1)(d)",
    description: "Imaging reports and references to the image studies.",
    guides: [{ name: "HL7 Europe Imaging Report", url: "http://hl7.eu/fhir/imaging" }],
    profiles: [
      {
        id: "ImagingStudyEuImaging",
        title: "ImagingStudy (EU imaging)",
        canonical: "http://hl7.eu/fhir/imaging-r4/StructureDefinition/ImagingStudyEuImaging",
        resourceType: "ImagingStudy",
        label: null,
        elements: [{ path: "ImagingStudy.series", required: true, test: () => false }],
      },
      {
        id: "CompositionEuImaging",
        title: "Composition (imaging report)",
        canonical: "http://hl7.eu/fhir/imaging-r4/StructureDefinition/CompositionEuImaging",
        resourceType: "Composition",
        label: null,
        elements: [{ path: "Composition.section", required: true, test: () => false }],
      },
    ],
    readiness: "an ImagingStudy with its report",
  },
  {
    id: "discharge",
    title: "Hospital discharge reports",
    legalBasis: "EHDS Art. 14(1)(e)",
    description:
      "The report of an inpatient stay: admission, diagnoses, procedures and medication at discharge.",
    guides: [{ name: "HL7 Europe Hospital Discharge Report (HDR)", url: "http://hl7.eu/fhir/hdr" }],
    profiles: [
      {
        id: "encounter-eu-hdr",
        title: "Encounter (inpatient stay)",
        canonical: "http://hl7.eu/fhir/hdr/StructureDefinition/encounter-eu-hdr",
        resourceType: "Encounter",
        label: "Encounter",
        applies: eq("class", "IMP"),
        elements: [
          { path: "Encounter.status", required: true, test: has("status") },
          { path: "Encounter.class = IMP", required: true, test: eq("class", "IMP") },
          { path: "Encounter.subject", required: true, test: has("patientId") },
          { path: "Encounter.period.start", required: true, test: has("periodStart") },
          { path: "Encounter.period.end", required: true, test: has("periodEnd") },
          { path: "Encounter.serviceProvider", required: false, test: has("serviceProvider") },
          { path: "Encounter.reasonCode", required: false, test: has("reasonCode") },
        ],
      },
      {
        id: "composition-eu-hdr",
        title: "Composition (discharge report)",
        canonical: "http://hl7.eu/fhir/hdr/StructureDefinition/composition-eu-hdr",
        resourceType: "Composition",
        label: null,
        elements: [
          { path: "Composition.type = 34105-7 (discharge summary)", required: true, test: () => false },
        ],
      },
    ],
    readiness:
      "a conformant inpatient Encounter with at least one diagnosis recorded in it (the data a discharge report is built from)",
  },
];
