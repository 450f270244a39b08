{{%AUTOESCAPE context="HTML"}}
{{! experiment.tpl: one experiment's page: what to fix first, key numbers, findings (folded), runs, figures, tables, Methods, Provenance. }}
{{! AUTOESCAPE above makes ctemplate escape every value for the context it lands in; }}
{{! <pre> blocks use :pre_escape, which escapes like :h but keeps line breaks. }}
{{! The runs table and the other tables share the same markup; keep the two in step. }}
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="perfstudy {{VERSION}}">
<title>{{TITLE}} · perfstudy</title>
<link rel="stylesheet" href="../assets/style.css">
<script src="../assets/sort.js" defer></script>
</head>
<body>
<header class="site">
<div class="wrap"><a class="brand" href="../index.html">perfstudy</a></div>
</header>
<main class="wrap">
<nav class="back"><a href="../index.html">&larr; All experiments</a></nav>
<h1>{{TITLE}}</h1>
{{#DESCRIPTION}}
<p class="lead">{{TEXT}}</p>
{{/DESCRIPTION}}
{{#FIX}}
<section id="fix" class="fix" aria-labelledby="fix-h">
<h2 id="fix-h">What to fix first</h2>
{{#FIX_LINES}}
<ol class="fix-list">
{{#LINE}}
<li><a href="#{{ANCHOR}}"><span class="run">{{RUN}}</span>{{#RANK}} &middot; rank {{N}}{{/RANK}} &middot; {{WHAT}} &middot; {{#SAVES}}<strong>saves {{SAVING}}/step</strong>{{/SAVES}}{{#FULL}}<strong class="when">{{WHEN}}</strong>{{/FULL}}</a></li>
{{/LINE}}
</ol>
{{#MORE}}
<p class="more"><a href="#findings">and {{N}} more</a></p>
{{/MORE}}
{{#TOGETHER}}
<p class="fix-together">Not to be added up: {{LIST}} (replayed with all of them removed at once: each fix alone also counts time that removing another gives back; <code>replay_fixes.csv</code> <code>saving_all_causes_us</code>).</p>
{{/TOGETHER}}
<p class="meta">One line per cause (a straggler's waiting and cause findings are one), largest saving first across the runs: how much shorter each training step would be with that cause fixed (findings.csv <code>saving_us_per_step</code>); each links to its finding below, with the evidence and the fix to try.</p>
{{/FIX_LINES}}
{{#FIX_NONE}}
<p class="fix-none">No cause worth fixing found: no finding states what fixing it would save (a saving is stated where replaying the step without a cause shortens it beyond the replay's noise, or for a rank the others wait for at their collectives where it exceeds the run's noise; Methods: <code>replay_fixes.csv</code>, <code>findings.csv</code>).{{#FIX_NONE_FINDINGS}} The {{N}} finding{{S}} below{{#RULES}} ({{LIST}}){{/RULES}} {{VERB}}; none prices a fix.{{/FIX_NONE_FINDINGS}}</p>
{{/FIX_NONE}}
{{#UNPRICED}}
<p class="fix-unpriced">Seen, not priced: {{LIST}} held the other ranks back at their collectives, but no saving is stated (each within the noise, or less than the profiler added to each step); each one's straggler-unpriced finding below says how long the others waited and why.</p>
{{/UNPRICED}}
</section>
{{/FIX}}
{{#CHANGES}}
<section class="changes" aria-label="Since the build before">
<h2>Since the build before</h2>
<ul>
{{#CHANGE}}
<li class="{{CLASS}}">{{TEXT}}</li>
{{/CHANGE}}
</ul>
<p class="meta">Every change, with its test: table <a href="#table-changes">changes</a> (Methods: <code>changes.csv</code>).</p>
</section>
{{/CHANGES}}
<dl class="facts">
<div><dt>Newest trace</dt><dd>{{#NEWEST}}{{TEXT}}{{/NEWEST}}{{#NEWEST_NONE}}unknown{{/NEWEST_NONE}}{{#NEWEST_TABLE}}none: the numbers are from the published table, with no trace{{/NEWEST_TABLE}}</dd></div>
<div><dt>GPUs (max)</dt><dd class="num">{{GPUS_MAX}}</dd></div>
<div><dt>Models</dt><dd>{{#MODELS}}{{TEXT}}{{/MODELS}}{{#MODELS_NONE}}not recorded{{/MODELS_NONE}}</dd></div>
<div><dt>Classification</dt><dd>{{CLASSIFICATION}}</dd></div>
</dl>
<nav class="toc" aria-label="Contents">
{{#FIX}}
<a href="#fix">What to fix first</a>
{{/FIX}}
{{#KEY}}
<a href="#key">Key numbers</a>
{{/KEY}}
{{#FINDINGS}}
<a href="#findings">Findings</a>
{{/FINDINGS}}
<a href="#runs">Runs</a>
{{#FIGURES}}
<a href="#figures">Figures</a>
{{/FIGURES}}
{{#TABLES}}
<a href="#tables">Tables</a>
{{/TABLES}}
<a href="#methods">Methods</a>
<a href="#provenance">Provenance</a>
</nav>

{{#KEY}}
<section id="key" class="key">
<h2>Key numbers</h2>
<div class="table-wrap">
<table class="data keynums">
<thead>
<tr><th scope="col" class="text">Run</th>{{#KLOG}}<th scope="col" class="num">Step, training log <span class="unit">(unprofiled, median)</span></th>{{/KLOG}}{{#KTRACE}}<th scope="col" class="num">Step, trace <span class="unit">(profiled, median over steps of each step&rsquo;s slowest rank)</span></th>{{/KTRACE}}{{#KGPU}}<th scope="col" class="num">Step, trace GPU side <span class="unit">(profiled, median period)</span></th>{{/KGPU}}{{#KSPEEDUP}}<th scope="col" class="num">Speedup <span class="unit">(vs baseline)</span></th>{{/KSPEEDUP}}<th scope="col" class="text">Top cause</th></tr>
</thead>
<tbody>
{{#KROW}}
<tr><td class="text">{{RUN}}</td>{{#KLOG}}<td class="num">{{#VAL}}{{MS}} <span class="n{{#FEW}} few{{/FEW}}">{{#FEW}}only {{/FEW}}{{N}} iteration{{#PLURAL}}s{{/PLURAL}}</span>{{/VAL}}{{#NONE}}<span class="n">no log</span>{{/NONE}}</td>{{/KLOG}}{{#KTRACE}}<td class="num">{{#VAL}}{{MS}} <span class="n{{#FEW}} few{{/FEW}}">{{#FEW}}only {{/FEW}}{{N}} step{{#PLURAL}}s{{/PLURAL}}</span>{{/VAL}}{{#NONE}}<span class="n">no trace</span>{{/NONE}}</td>{{/KTRACE}}{{#KGPU}}<td class="num">{{#VAL}}{{MS}} <span class="n{{#FEW}} few{{/FEW}}">{{#FEW}}only {{/FEW}}{{N}} period{{#PLURAL}}s{{/PLURAL}}</span>{{/VAL}}{{#NONE}}<span class="n">&ndash;</span>{{/NONE}}</td>{{/KGPU}}{{#KSPEEDUP}}<td class="num speedup">{{#VAL}}{{X}} <span class="n">vs {{BASELINE}}{{#EFF}}, {{TEXT}}{{/EFF}}{{#STEP}}: step {{TEXT}} {{BASELINE}}&rsquo;s, same GPU count{{/STEP}}; {{SOURCE}}</span>{{/VAL}}{{#BASE}}<span class="n">baseline</span>{{/BASE}}{{#NONE}}<span class="n">&ndash;</span>{{/NONE}}</td>{{/KSPEEDUP}}<td class="text">{{#CAUSE}}<a href="#{{ANCHOR}}">{{#RANK}}rank {{N}}: {{/RANK}}{{WHAT}}{{#SAVES}}, saves {{SAVING}}/step{{/SAVES}}{{#FULL}}, {{WHEN}}{{/FULL}}</a>{{/CAUSE}}{{#CAUSE_NONE}}<span class="n">none found</span>{{/CAUSE_NONE}}</td></tr>
{{/KROW}}
</tbody>
</table>
</div>
<p class="meta">Sources: {{#KLOG}}the training log's unprofiled iterations, their median (profiler_overhead.csv <code>unprofiled_median_us</code>); {{/KLOG}}{{#KTRACE}}the trace's profiled steps, their median, each step its slowest rank's (step_stats.csv <code>median_us</code>); {{/KTRACE}}{{#KSPEEDUP}}the speedup over the run's baseline in throughput, from the training logs where both runs have one, else from the profiled steps, as said in each cell (scaling.csv <code>log_speedup</code>, <code>speedup</code>), with its efficiency against the ratio of GPUs where the GPU counts differ, and where they are equal (no scaling to measure) the run's step time over the baseline's from the same source instead; {{/KSPEEDUP}}{{#KGPU}}the GPU side of the profiled steps, the median period from the end of the GPU work one step launched to the end of the next step's (step_stats.csv <code>gpu_period_median_us</code>); {{/KGPU}}the top cause, the run's first line of What to fix first. A number from fewer than 5 samples says &ldquo;only&rdquo; before its count.</p>
{{#KASYNC}}<p class="note" id="key-async"><strong>Two step times, two things.</strong> {{RUNS}}: the trace's step (its ProfilerStep#N spans) is under 80&nbsp;% of the GPU side of the same steps. Such a loop does not synchronise around its steps: the host only enqueues each step's work and runs ahead of the GPU, which runs that work after the span has ended, so the profiled span is the host's time to enqueue a step, not the step. {{#KLOG}}The training's step is the training log's (its time per iteration, outside the profiler, over the unprofiled iterations counted in each cell); {{/KLOG}}{{#NOLOG}}The training's step is {{/NOLOG}}the trace's GPU side, from the end of one profiled step's GPU work to the end of the next's (over the periods counted in each cell){{#KLOG}}, measures the same step on the profiled steps{{/KLOG}}.</p>{{/KASYNC}}
{{#KFIG}}
<figure class="timeline" id="key-{{FIG_NAME}}">
<a href="figures/{{FIG_NAME}}.svg"><img src="figures/{{FIG_NAME}}.svg" alt="{{FIG_CAPTION}}"></a>
<figcaption><span class="fig-no">{{RUN}}.</span> {{FIG_CAPTION}} <a href="#figure-{{FIG_NAME}}">Figure {{FIG_NUMBER}}</a></figcaption>
</figure>
{{/KFIG}}
</section>
{{/KEY}}
{{#FINDINGS}}
<section id="findings" class="findings">
<h2>Findings</h2>
<p class="meta">Generated from the tables below by fixed rules (Methods: <code>findings.csv</code>); each folded to its first clause: open it for the whole statement, the link to its evidence and the rule that made it.</p>
{{#FRUN}}
<h3>{{RUN}}</h3>
{{#FINDING}}
<details class="finding"><summary>{{SUMMARY}}{{#SAVES}} <span class="saves">saves {{SAVING}}/step</span>{{/SAVES}}</summary><p id="{{ANCHOR}}">{{TEXT}} <a class="evidence" href="#{{EVIDENCE}}">evidence</a>{{#TRACE}} <a class="evidence trace" href="{{FILE}}" download>merged trace</a>{{/TRACE}}</p><p class="rule">rule: {{RULE}}</p></details>
{{/FINDING}}
{{/FRUN}}
<p class="meta"><a class="download" href="data/findings.csv" download>CSV</a></p>
</section>
{{/FINDINGS}}

{{#NOTES}}
<section id="notes" class="notes">
<h2>Notes</h2>
<p class="meta">What the data could not support, and what looked wrong.</p>
<ul>
{{#NOTE}}
<li>{{TEXT}}</li>
{{/NOTE}}
</ul>
</section>
{{/NOTES}}

<section id="runs">
<h2>Runs</h2>
{{#RUNS}}
<div class="table-head">
<p class="meta">{{TABLE_ROWS}} row{{#PLURAL}}s{{/PLURAL}}</p>
<a class="download" href="data/{{TABLE_NAME}}.csv" download>CSV</a>
</div>
<div class="table-wrap">
<table class="data sortable">
<thead>
<tr>
{{#COL}}
<th scope="col" class="{{COL_CLASS}}" title="CSV column {{COL_CSV}}">{{COL_LABEL}}{{#UNIT}} <span class="unit">({{TEXT}})</span>{{/UNIT}}{{#DEF}} <span class="def">{{TEXT}}</span>{{/DEF}}</th>
{{/COL}}
</tr>
</thead>
<tbody>
{{#ROW}}
<tr>{{#CELL}}<td class="{{CELL_CLASS}}">{{CELL_VALUE}}</td>{{/CELL}}</tr>
{{/ROW}}
</tbody>
</table>
</div>
{{/RUNS}}
{{#RUNS_NONE}}
<p>No runs.</p>
{{/RUNS_NONE}}
{{#TRACES}}
<section id="traces" class="traces">
<h3>Merged traces</h3>
<p class="meta">Each run's events in one file: one process per rank, every time moved onto the run's reference clock (<code>clock_offsets.csv</code>), with tracks added for the waits inside collectives, the straggler windows, the critical path and the findings (Methods: <code>traces/&lt;run&gt;.trace.json.gz</code>). To open one, download it and open it in Perfetto: in <code>ui.perfetto.dev</code> choose <em>Open trace file</em> (Perfetto runs in the browser and reads the file there; nothing is uploaded), or load it in <code>chrome://tracing</code>. For a file too large for a browser tab, start Perfetto's trace processor on your machine (<code>trace_processor --httpd FILE</code>) and open <code>ui.perfetto.dev</code>, which then uses it. Nothing on this page fetches anything.</p>
<ul>
{{#TRACE}}
<li id="trace-{{RUN}}">{{#WRITTEN}}<a class="download" href="{{FILE}}" download>{{RUN}}</a>{{/WRITTEN}}{{#SKIPPED}}{{RUN}}{{/SKIPPED}} &middot; {{RANKS}} rank{{#PLURAL}}s{{/PLURAL}} &middot; {{EVENTS}} events{{#WRITTEN}} &middot; {{SIZE}}{{/WRITTEN}}{{#CUT}} &middot; {{TEXT}}{{/CUT}}{{#SKIPPED}} &middot; {{TEXT}}{{/SKIPPED}}</li>
{{/TRACE}}
</ul>
</section>
{{/TRACES}}
</section>

{{#FIGURES}}
<section id="figures">
<h2>Figures</h2>
{{#FIGURE}}
<figure id="figure-{{FIG_NAME}}">
<a href="figures/{{FIG_NAME}}.svg"><img src="figures/{{FIG_NAME}}.svg" alt="{{FIG_CAPTION}}"></a>
<figcaption>
<span class="fig-no">Figure {{FIG_NUMBER}}.</span> {{FIG_CAPTION}}
<span class="downloads">
<a href="figures/{{FIG_NAME}}.svg">SVG</a>
<a href="figures/{{FIG_NAME}}.pdf">PDF</a>
<a href="figures/{{FIG_NAME}}.png">PNG</a>
</span>
</figcaption>
</figure>
{{/FIGURE}}
</section>
{{/FIGURES}}

{{#TABLES}}
<section id="tables">
<h2>Tables</h2>
{{#TABLE}}
<section class="table" id="table-{{TABLE_NAME}}">
<h3>{{TABLE_TITLE}}</h3>
<div class="table-head">
<p class="meta"><code>{{TABLE_NAME}}.csv</code> &middot; {{TABLE_ROWS}} row{{#PLURAL}}s{{/PLURAL}}{{#SHOWN}} &middot; <span class="shown">the first {{SHOWN_ROWS}} shown (sorting sorts those); all {{TABLE_ROWS}} are in the CSV</span>{{/SHOWN}}</p>
<a class="download" href="data/{{TABLE_NAME}}.csv" download>CSV</a>
</div>
<div class="table-wrap">
<table class="data sortable">
<thead>
<tr>
{{#COL}}
<th scope="col" class="{{COL_CLASS}}" title="CSV column {{COL_CSV}}">{{COL_LABEL}}{{#UNIT}} <span class="unit">({{TEXT}})</span>{{/UNIT}}{{#DEF}} <span class="def">{{TEXT}}</span>{{/DEF}}</th>
{{/COL}}
</tr>
</thead>
<tbody>
{{#ROW}}
<tr>{{#CELL}}<td class="{{CELL_CLASS}}">{{CELL_VALUE}}</td>{{/CELL}}</tr>
{{/ROW}}
</tbody>
</table>
</div>
</section>
{{/TABLE}}
</section>
{{/TABLES}}

<section id="methods">
<h2>Methods</h2>
<p>All times are in microseconds (µs), shown with three decimals of the nanosecond values read from the traces; fractions run from 0 to 1. Each table is also in <code>data/</code> as CSV, with the same numbers as shown here.</p>
<dl class="defs">
{{#METHOD}}
<dt><code>{{TERM}}</code></dt>
<dd>{{TEXT}}</dd>
{{/METHOD}}
</dl>
<h3>Classification</h3>
<p>Activities are assigned to groups by these rules (<strong>{{CLASSIFICATION}}</strong>):</p>
<pre class="rules">{{RULES:pre_escape}}</pre>
</section>

<section id="provenance">
<h2>Provenance</h2>
<p>Built by perfstudy {{VERSION}} from the inputs below.</p>
<h3>Inputs</h3>
{{#INPUTS}}
<div class="table-wrap">
<table class="data inputs">
<thead>
<tr><th scope="col" class="text">Path</th><th scope="col" class="num">Size <span class="unit">(bytes)</span></th><th scope="col" class="text">SHA-256</th></tr>
</thead>
<tbody>
{{#INPUT}}
<tr><td class="text path">{{PATH}}</td><td class="num">{{SIZE}}</td><td class="text"><code class="hash">{{SHA256}}</code></td></tr>
{{/INPUT}}
</tbody>
</table>
</div>
{{/INPUTS}}
{{#INPUTS_NONE}}
<p>No inputs were recorded.</p>
{{/INPUTS_NONE}}
<h3>Manifest</h3>
{{#MANIFEST}}
<pre class="manifest">{{TEXT:pre_escape}}</pre>
{{/MANIFEST}}
{{#MANIFEST_NONE}}
<p>Built from a directory of traces, without a manifest.</p>
{{/MANIFEST_NONE}}
<h3>Warnings</h3>
{{#WARNINGS}}
<ul class="warnings">
{{#WARNING}}
<li>{{TEXT}}</li>
{{/WARNING}}
</ul>
{{/WARNINGS}}
{{#WARNINGS_NONE}}
<p>None.</p>
{{/WARNINGS_NONE}}
</section>
</main>
<footer class="site">
<div class="wrap">Generated by perfstudy {{VERSION}}. <a href="../index.html">All experiments</a></div>
</footer>
</body>
</html>
