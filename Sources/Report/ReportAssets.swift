/// The page's inline style sheet and script (no external files: the report must open offline and as a CI artifact).
enum ReportAssets {
    static let css = """
    :root{--fg:#1d2430;--dim:#667085;--line:#d9dee7;--bg:#fff;--band:#f5f7fa;--ok:#137333;--bad:#b3261e;--fair:#b06000;--accent:#2457c5}
    *{box-sizing:border-box}[hidden]{display:none!important}
    body{margin:0 auto;max-width:1400px;padding:16px 24px 48px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
    h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
    h3{font-size:15px;margin:16px 0 6px}h3 small{font-weight:normal;color:var(--dim)}
    .meta,.dim{color:var(--dim)}.ok{color:var(--ok)}.bad{color:var(--bad)}.error{color:var(--bad);white-space:pre-wrap}
    .model{display:inline-block;background:var(--band);border:1px solid var(--line);border-radius:10px;padding:0 8px;margin-right:4px;font-size:12px}
    td.model{display:table-cell;border-radius:0;background:none;border:none;border-bottom:1px solid var(--line);font-size:13px}
    .totals{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
    .total{border:1px solid var(--line);border-radius:6px;padding:6px 12px;min-width:120px;background:var(--band)}
    .total dt{font-size:12px;color:var(--dim)}.total dd{margin:0;font-size:18px;font-weight:600}
    .total.bad dd{color:var(--bad)}.total.ok dd{color:var(--ok)}
    nav{margin:6px 0}a{color:var(--accent)}a.loc{font-family:ui-monospace,Menlo,monospace;font-size:12px}
    #filters{position:sticky;top:0;z-index:2;background:var(--bg);border-bottom:1px solid var(--line);padding:6px 0;display:flex;gap:16px;align-items:center;flex-wrap:wrap}
    table{border-collapse:collapse;width:100%;margin:6px 0}th,td{text-align:left;vertical-align:top;padding:4px 8px;border-bottom:1px solid var(--line)}
    th{background:var(--band);font-weight:600;font-size:13px}
    table.matrix td.cell{max-width:420px}.out{white-space:pre-wrap;word-break:break-word}.verdict{font-size:12px;margin-top:2px}
    .verdict.ok{color:var(--ok)}.verdict.bad{color:var(--bad)}.more{font-size:12px}
    pre{background:var(--band);border:1px solid var(--line);border-radius:4px;padding:6px 8px;white-space:pre-wrap;word-break:break-word;margin:4px 0}
    details.result{border:1px solid var(--line);border-radius:4px;margin:4px 0;padding:2px 8px}details.result>summary{cursor:pointer}
    details.run>summary{font-weight:600;cursor:pointer;margin-top:10px}.block{margin-left:12px}
    .facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:4px 0}.facts dt{color:var(--dim)}.facts dd{margin:0}
    .chart text{font-size:12px;fill:var(--fg)}.chart .tick{fill:var(--dim);font-size:11px}.chart .track{fill:var(--band)}
    .chart .axis{stroke:var(--line)}.chart .good{fill:#3b9c5a}.chart .fair{fill:#e0a030}.chart .poor{fill:#d0483c}
    ul.failures{padding-left:18px}ul.failures li{margin:6px 0}.kv{margin-left:12px}.kv b{color:var(--dim);font-weight:normal}
    pre.diff .del{background:#fde8e6;color:var(--bad)}pre.diff .ins{background:#e6f4ea;color:var(--ok)}pre.diff .head{font-weight:600}
    footer{margin-top:32px;color:var(--dim);font-size:12px}
    section,details.run{content-visibility:auto;contain-intrinsic-size:auto 800px}
    .rows{content-visibility:auto}.rows>table,.rows>ul{margin:0}.rows>table{table-layout:fixed}
    table.matrix col:nth-child(1){width:15%}table.matrix col:nth-child(2){width:17%}table.matrix col:nth-child(3){width:5%}
    table.summary col:nth-child(1){width:14%}table.summary col:nth-child(2){width:15%}table.summary col:nth-child(3){width:14%}
    table.summary col:nth-child(4){width:20%}table.summary col:nth-child(5){width:11%}table.summary col:nth-child(6){width:7%}
    table.summary col:nth-child(7){width:11%}table.summary col:nth-child(8){width:8%}
    table.samples col:nth-child(1){width:4%}table.samples col:nth-child(2){width:32%}table.samples col:nth-child(3){width:38%}
    table.baseline col:nth-child(1){width:28%}table.baseline col:nth-child(2){width:15%}table.baseline col:nth-child(3){width:10%}
    td{overflow-wrap:anywhere}
    """

    /// Filters (failures only, one model, one metric), folding, and each response's details built on
    /// first open from its `<template>` (also when a link such as `#r12` points at it). Reads only the
    /// page's own elements and attributes; it never parses run data as HTML or code.
    static let script = """
    (function(){
    var form=document.getElementById('filters');
    var shown=document.getElementById('shown');
    function filtering(){return form.elements.failures.checked||form.elements.model.value||(form.elements.metric&&form.elements.metric.value);}
    function apply(){
      var failures=form.elements.failures.checked, model=form.elements.model.value;
      var metric=form.elements.metric?form.elements.metric.value:'';
      var rows=document.querySelectorAll('[data-model],[data-failed],[data-metrics]');
      var visible=0;
      for(var i=0;i<rows.length;i++){
        var r=rows[i], hide=false;
        if(model&&r.hasAttribute('data-model')&&r.getAttribute('data-model')!==model)hide=true;
        if(failures&&r.getAttribute('data-failed')==='0')hide=true;
        if(metric&&r.hasAttribute('data-metrics')&&r.getAttribute('data-metrics').indexOf('|'+metric+'|')<0)hide=true;
        r.hidden=hide;
        if(!hide&&r.tagName==='TR')visible++;
      }
      shown.textContent=visible+' table rows shown';
    }
    function fill(d){
      var t=d.querySelector(':scope>template');
      if(!t)return;
      d.replaceChild(t.content,t);
      if(filtering())apply();
    }
    document.addEventListener('toggle',function(e){if(e.target.tagName==='DETAILS'&&e.target.open)fill(e.target);},true);
    function fold(open){
      var d,i;
      if(open){d=document.querySelectorAll('details.result');for(i=0;i<d.length;i++)fill(d[i]);}
      d=document.querySelectorAll('details');for(i=0;i<d.length;i++)d[i].open=open;
    }
    function reveal(){
      var id=decodeURIComponent(location.hash.slice(1)), d=id&&document.getElementById(id);
      if(!d||d.tagName!=='DETAILS')return;
      for(var p=d;p;p=p.parentElement)if(p.tagName==='DETAILS')p.open=true;
      fill(d);
      d.scrollIntoView();
    }
    form.addEventListener('change',apply);
    document.getElementById('expand').addEventListener('click',function(){fold(true);});
    document.getElementById('collapse').addEventListener('click',function(){fold(false);});
    addEventListener('hashchange',reveal);
    if(location.hash)reveal();
    form.hidden=false;
    document.documentElement.setAttribute('data-ready',String(Math.round(performance.now())));
    })();
    """
}
