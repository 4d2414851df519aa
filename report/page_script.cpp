// The inline script of the reports: sortable and searchable tables, long names shortened in the
// middle, and the rank drill-down panel. Plain ES5, no network, no library.
#include "report/page_script.h"

namespace cs::report {

namespace {

// Sort keys: a cell's data-v when present, else its text read as a number with a unit ("81.9 ms",
// "12.5%", "3.1 GB/s") scaled to one base, else the lower-cased text. Numbers sort before text.
// Drill-down: cells of a column headed "rank" (and slow-rank findings, chart bars with data-rank)
// open a panel with every table row of that rank and the merge command for its timeline beside
// a healthy peer (from the page's JSON data block, id cs-data).
constexpr std::string_view kScript = R"JS(
(function(){'use strict';
var U={'ns':1e-3,'\u00b5s':1,'us':1,'ms':1e3,'s':1e6,'B':1,'KB':1e3,'MB':1e6,'GB':1e9,'TB':1e12,
'KiB':1024,'MiB':1048576,'GiB':1073741824,'%':1,'B/s':1,'KB/s':1e3,'MB/s':1e6,'GB/s':1e9,'x':1,'\u00d7':1};
var D={};try{var e=document.getElementById('cs-data');if(e)D=JSON.parse(e.textContent);}catch(x){}
function full(td){return td.getAttribute('data-full')||td.textContent;}
function key(td){if(!td)return '';var v=td.getAttribute('data-v');if(v!==null&&v!=='')return parseFloat(v);
var t=full(td).trim().replace(/\u2212/g,'-');
var m=/^([+-]?[0-9][0-9,]*(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)\s*(\S*)$/i.exec(t);
if(m&&(m[2]===''||U[m[2]]!==undefined))return parseFloat(m[1].replace(/,/g,''))*(U[m[2]]||1);
return t.toLowerCase();}
function cmp(a,b){var na=typeof a==='number',nb=typeof b==='number';if(na&&nb)return a-b;
if(na)return -1;if(nb)return 1;return a<b?-1:(a>b?1:0);}
function shorten(td,n){var t=td.textContent;if(t.length<=n||td.children.length)return;
var k=Math.floor((n-1)/2);td.setAttribute('data-full',t);td.title=t;
td.textContent=t.slice(0,k)+'\u2026'+t.slice(t.length-k);td.classList.add('short');}
function sortable(tb){if(!tb.tHead||!tb.tBodies[0])return;var ths=tb.tHead.rows[0].cells;
for(var i=0;i<ths.length;i++)(function(i,th){th.classList.add('sortable');th.tabIndex=0;
th.title='Sort by '+th.textContent;function go(){var body=tb.tBodies[0];
var rows=Array.prototype.slice.call(body.rows);var keys=new Map();
rows.forEach(function(r){keys.set(r,key(r.cells[i]));});
var cur=th.getAttribute('aria-sort');var num=rows.length&&typeof keys.get(rows[0])==='number';
var dir=cur?(cur==='ascending'?-1:1):(num?-1:1);
for(var j=0;j<ths.length;j++)ths[j].removeAttribute('aria-sort');
th.setAttribute('aria-sort',dir>0?'ascending':'descending');
rows.sort(function(a,b){return dir*cmp(keys.get(a),keys.get(b));});
var f=document.createDocumentFragment();rows.forEach(function(r){f.appendChild(r);});body.appendChild(f);}
th.addEventListener('click',go);th.addEventListener('keydown',function(ev){if(ev.key==='Enter')go();});
})(i,ths[i]);}
function searchable(tb){var body=tb.tBodies[0];if(!body||body.rows.length<6)return;
var box=document.createElement('div');box.className='tsearch';var inp=document.createElement('input');
inp.type='search';inp.placeholder='Filter rows: rank, operator, group\u2026';
inp.setAttribute('aria-label','Filter the rows of the table below');var cnt=document.createElement('span');
cnt.className='ev';box.appendChild(inp);box.appendChild(cnt);tb.parentNode.insertBefore(box,tb);
var n=body.rows.length;cnt.textContent=n+' rows';
inp.addEventListener('input',function(){var q=inp.value.trim().toLowerCase(),shown=0;
for(var r=0;r<body.rows.length;r++){var row=body.rows[r],txt='';
for(var c=0;c<row.cells.length;c++)txt+=' '+full(row.cells[c]);
var ok=!q||txt.toLowerCase().indexOf(q)>=0;row.style.display=ok?'':'none';shown+=ok;}
cnt.textContent=q?shown+' of '+n+' rows':n+' rows';});}
function rankCols(tb){var out=[];if(!tb.tHead)return out;var ths=tb.tHead.rows[0].cells;
for(var i=0;i<ths.length;i++)if(/^rank$/i.test(ths[i].textContent.trim()))out.push(i);return out;}
var panel=null;
function drill(rank){rank=String(rank);if(!panel){panel=document.createElement('aside');panel.id='drill';
document.body.appendChild(panel);}
panel.innerHTML='';var x=document.createElement('button');x.textContent='\u00d7';x.className='close';
x.title='Close';x.onclick=function(){panel.style.display='none';};panel.appendChild(x);
var h=document.createElement('h2');h.textContent='Rank '+rank;panel.appendChild(h);
var slow=(D.slow_ranks||[]).map(String).indexOf(rank)>=0;
var p=document.createElement('p');p.className='note';
p.textContent=slow?'Judged slow by the diagnosis.':'Not judged slow.';panel.appendChild(p);
if(window.csDrillExtra)window.csDrillExtra(rank,panel);
if(window.csDrillHost)window.csDrillHost(rank,panel);
var tabs=document.querySelectorAll('main table');
for(var t=0;t<tabs.length;t++){var tb=tabs[t],cols=rankCols(tb);if(!cols.length||!tb.tBodies[0])continue;
var hit=[];for(var r=0;r<tb.tBodies[0].rows.length;r++){var row=tb.tBodies[0].rows[r];
for(var c=0;c<cols.length;c++)if(row.cells[cols[c]]&&row.cells[cols[c]].textContent.trim()===rank){hit.push(row);break;}}
if(!hit.length)continue;var sec=tb.closest('section');var h3=document.createElement('h3');
h3.textContent=(sec&&sec.querySelector('h2')?sec.querySelector('h2').textContent:'Table');panel.appendChild(h3);
var nt=document.createElement('table');nt.appendChild(tb.tHead.cloneNode(true));var nb=document.createElement('tbody');
hit.slice(0,40).forEach(function(row){var cl=row.cloneNode(true);cl.style.display='';nb.appendChild(cl);});
nt.appendChild(nb);panel.appendChild(nt);}
var peer=D.peer;if(String(peer)===rank)peer=D.peer2;
if(D.input&&peer!==undefined){var h4=document.createElement('h3');h4.textContent='Timeline beside a healthy peer';
panel.appendChild(h4);var pre=document.createElement('pre');pre.className='summary';
pre.textContent='clusterscope merge '+D.input+' --ranks '+rank+','+peer+' -o rank'+rank+'_vs_'+peer+'.json';
panel.appendChild(pre);}
panel.style.display='block';}
function target(el){while(el&&el!==document){if(el.getAttribute&&el.getAttribute('data-rank')!==null)return el.getAttribute('data-rank');
el=el.parentNode;}return null;}
document.addEventListener('click',function(ev){var r=target(ev.target);if(r!==null){drill(r);ev.preventDefault();}});
var tabs=document.querySelectorAll('main table');
for(var t=0;t<tabs.length;t++){var tb=tabs[t];var cols=rankCols(tb);if(tb.tBodies[0])
for(var r=0;r<tb.tBodies[0].rows.length;r++){var row=tb.tBodies[0].rows[r];
for(var c=0;c<row.cells.length;c++){var td=row.cells[c];
if(cols.indexOf(c)>=0&&/^[0-9]+$/.test(td.textContent.trim())){td.setAttribute('data-rank',td.textContent.trim());td.classList.add('rk');}
else if(!td.classList.contains('n'))shorten(td,64);}}
sortable(tb);searchable(tb);}
var caps=document.querySelectorAll('figcaption');for(var i=0;i<caps.length;i++)shorten(caps[i],200);
window.csDrill=drill;})();
)JS";

}  // namespace

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '<':
        out += "\\u003c";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static const char* hex = "0123456789abcdef";
          out += "\\u00";
          out += hex[(c >> 4) & 0xf];
          out += hex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void page_script(HtmlOut& h) {
  h.open("script");
  h.raw(kScript);
  h.raw(views_script());
  h.close();
}

void page_data(HtmlOut& h, const PageData& d) {
  std::string j = "{\"input\":" + json_string(d.input_path);
  j += ",\"slow_ranks\":[";
  for (size_t i = 0; i < d.slow_ranks.size(); ++i)
    j += (i ? "," : "") + std::to_string(d.slow_ranks[i]);
  j += "]";
  if (d.peer >= 0) j += ",\"peer\":" + std::to_string(d.peer);
  if (d.peer2 >= 0) j += ",\"peer2\":" + std::to_string(d.peer2);
  j += ",\"hosts\":[";
  for (size_t i = 0; i < d.hosts.size(); ++i) j += (i ? "," : "") + json_string(d.hosts[i]);
  j += "],\"groups\":[";
  for (size_t i = 0; i < d.groups.size(); ++i)
    j += (i ? "[" : "[") + json_string(d.groups[i].first) + "," + json_string(d.groups[i].second) +
         (i + 1 < d.groups.size() ? "]," : "]");
  j += "],\"rk\":{";
  bool first = true;
  for (const auto& [rank, r] : d.ranks) {
    j += (first ? "\"" : ",\"") + std::to_string(rank) + "\":[" + std::to_string(r.tp) + "," +
         std::to_string(r.dp) + "," + std::to_string(r.stage) + "," + std::to_string(r.host) + ",[";
    for (size_t i = 0; i < r.groups.size(); ++i) j += (i ? "," : "") + std::to_string(r.groups[i]);
    j += "]]";
    first = false;
  }
  j += "}}";
  h.open("script", attr("type", "application/json") + attr("id", "cs-data"));
  h.raw(j);
  h.close();
}

}  // namespace cs::report
