/**
 * Layer l5: one node per code of the vocabulary, and SNOMED CT -> ICD-10 mappings (MAPS_TO).
 */
import { ids } from "./ids";
import { RecordBuffer } from "./records";
import { CODE_SYSTEMS, CONDITIONS, DRUGS, MEASUREMENTS } from "./terminology";

export function buildOntology(): RecordBuffer {
  const out = new RecordBuffer();
  for (const c of CONDITIONS) {
    out.node("SnomedConcept", ids.snomed(c.snomed), {
      code: c.snomed,
      display: c.display,
      system: CODE_SYSTEMS.snomed,
      domain: "Condition",
      omopConceptId: c.omopConceptId,
    });
  }
  for (const c of CONDITIONS) {
    out.node("ICD10Code", ids.icd10(c.icd10), {
      code: c.icd10,
      display: c.icd10Display,
      system: CODE_SYSTEMS.icd10,
      chapterLetter: c.icd10.charAt(0),
    });
  }
  for (const d of DRUGS) {
    out.node("RxNormConcept", ids.rxnorm(d.rxnorm), {
      code: d.rxnorm,
      display: d.display,
      system: CODE_SYSTEMS.rxnorm,
      termType: "IN",
      atcCode: d.atc,
      omopConceptId: d.omopConceptId,
    });
  }
  for (const m of MEASUREMENTS) {
    out.node("LoincCode", ids.loinc(m.loinc), {
      code: m.loinc,
      display: m.display,
      system: CODE_SYSTEMS.loinc,
      unit: m.unit,
      category: m.category,
      omopConceptId: m.omopConceptId,
    });
  }
  for (const c of CONDITIONS) out.edge(ids.snomed(c.snomed), "MAPS_TO", ids.icd10(c.icd10));
  return out;
}
