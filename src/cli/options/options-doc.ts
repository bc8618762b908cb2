/** The option tables of docs/options.md, generated from the option table (`img-etl readme`; a test checks them). */
import { COMMAND_OPTIONS } from './option-table.js';
import { valuesText, type OptionSpec } from './option-spec.js';
import { envVariable } from './env-variables.js';

/** An option's type as --help shows it. */
function typeOf(option: OptionSpec): string {
  if (option.values !== undefined && 'oneOf' in option.values) return 'choice';
  return option.array === true ? `${option.type ?? 'string'} list` : (option.type ?? 'string');
}

/** An option's default as --help shows it. */
function defaultOf(option: OptionSpec): string {
  if (option.demandOption === true) return 'required';
  if (option.defaultDescription !== undefined) return option.defaultDescription;
  if (option.default === undefined) return '';
  return `\`${Array.isArray(option.default) ? option.default.join(',') : String(option.default)}\``;
}

/** A table cell: one line, its pipes escaped. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ');
}

/** The Markdown table of the options of the command at `at` in COMMAND_OPTIONS. */
export function optionsTableMarkdown(at: number): string {
  const { options, env, config } = COMMAND_OPTIONS[at]!;
  const head = [
    'option',
    'type',
    'default',
    'takes',
    ...(env ? ['variable'] : []),
    ...(config ? ['config key'] : []),
    'help',
  ];
  const rows = Object.entries(options).map(([name, option]) => [
    `\`--${name}\``,
    typeOf(option),
    defaultOf(option),
    valuesText(option),
    ...(env ? [`\`${envVariable(name)}\``] : []),
    ...(config ? [`\`"${name}"\``] : []),
    typeof option.describe === 'string' ? option.describe : '',
  ]);
  const lines = [head, head.map(() => '---'), ...rows].map((row) => `| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}
