import { configReferenceTable } from "../src/config/reference";

console.log(configReferenceTable());
