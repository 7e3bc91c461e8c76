// Types for selfheal/standard (js/standard.mjs): Standard Schema v1 objects (Zod 4, Valibot,
// ArkType) wherever selfheal takes a schema. The Standard Schema shapes are declared here
// structurally (as @standard-schema/spec 1.1 defines them), so no package is needed for types.

export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown, options?: { readonly libraryOptions?: Record<string, unknown> | undefined } | undefined) =>
      StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** Standard JSON Schema (@standard-schema/spec 1.1), when the library provides it. */
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string; readonly libraryOptions?: Record<string, unknown> | undefined }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string; readonly libraryOptions?: Record<string, unknown> | undefined }) => Record<string, unknown>;
    } | undefined;
  };
}
export type InferOutput<S> = S extends StandardSchemaV1<unknown, infer O> ? O : unknown;

/** A converter for a vendor without Standard JSON Schema, e.g. `{ valibot: toJsonSchema }`
 *  (`any`: each vendor's converter takes its own schema type, which a Standard Schema is not). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Converters = Record<string, (schema: any) => object | Promise<object>>;
export interface ConvertOptions {
  converters?: Converters;
  /** How a vendor's converter package is loaded (default: dynamic import by name). */
  importModule?: (name: string) => Promise<Record<string, unknown>>;
}
export type JsonSchemaSource = "standard-json-schema" | "converter" | "converter:zod" | "converter:@valibot/to-json-schema" | "none";
export interface ConvertedSchema {
  /** `true` when no JSON Schema could be had: any JSON value passes parsing. */
  jsonSchema: Record<string, unknown> | true;
  source: JsonSchemaSource;
  vendor: string;
  /** Why there is no JSON Schema (null when there is one). */
  note: string | null;
}
export interface Rejection {
  ok: false;
  issues: StandardIssue[];
  reason: string;
  outcome: { kind: "rejected"; reason: string };
}
export type Checked<Output> = { ok: true; value: Output } | Rejection;
export interface ResolvedSchema<Output = unknown> {
  standard: boolean;
  /** What goes into `LoopOptions.schema`: the converted JSON Schema, or the schema as given. */
  jsonSchema: object | boolean | string;
  source: JsonSchemaSource | "json-schema";
  vendor: string | null;
  note: string | null;
  /** The library's validate on an accepted value (a pass-through for a non-Standard schema). */
  check(value: unknown): Promise<Checked<Output>>;
}

export function isStandardSchema(value: unknown): value is StandardSchemaV1;
export function jsonSchemaOf(schema: StandardSchemaV1, options?: ConvertOptions): Promise<ConvertedSchema>;
export function issuePointer(issue: StandardIssue): string;
export function formatIssues(issues: ReadonlyArray<StandardIssue>): string;
export function validateStandard<S extends StandardSchemaV1>(schema: S, value: unknown): Promise<Checked<InferOutput<S>>>;
/**
 * A Standard Schema's JSON Schema taken synchronously (Standard JSON Schema's `input`, draft
 * 2020-12 then draft-07), patterns that need backtracking left out; null when none can be had.
 */
export function jsonSchemaSync(schema: unknown): object | boolean | null;
export function resolveSchema<S extends StandardSchemaV1>(schema: S, options?: ConvertOptions): Promise<ResolvedSchema<InferOutput<S>>>;
export function resolveSchema(schema: unknown, options?: ConvertOptions): Promise<ResolvedSchema>;
