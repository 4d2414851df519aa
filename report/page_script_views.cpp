// The views part of the reports' inline script: the rank x step heatmap drawn on canvas (data in
// <script id="cs-heat">), the group picker of the matrix section, and what the rank drill-down
// adds beyond the table rows (coordinates, host, groups, steps against the stage median, the
// operators on which the rank is furthest above its stage peers). Plain ES5.
#include "report/page_script.h"

namespace cs::report {

namespace {

constexpr std::string_view kViews = R"JS(
(function(){'use strict';
var D={},H=null;try{var e=document.getElementById('cs-data');if(e)D=JSON.parse(e.textContent);
var g=document.getElementById('cs-heat');if(g)H=JSON.parse(g.textContent);}catch(x){}
function fmt(us){if(us<0)return '\u2013';return us>=1e6?(us/1e6).toFixed(2)+' s':(us>=1e3?(us/1e3).toFixed(2)+' ms':us.toFixed(1)+' \u00b5s');}
function pct(r){return (r>=1?'+':'\u2212')+Math.abs((r-1)*100).toFixed(1)+'%';}
var ratio=null,pos={};
if(H){H.ranks.forEach(function(r,i){pos[r]=i;});ratio=H.r.map(function(row){return row.map(function(v){return v<0?NaN:v/1000;});});
H.c=H.r.map(function(row,si){return row.map(function(v,i){return v<0?-1:v/1000*H.med[si][H.stage[i]];});});}
function color(r){if(!(r===r))return '#d0d7de';var t=Math.max(-1,Math.min(1,(r-1)/0.15));
var w=[247,247,247],hi=t>0?[178,24,43]:[33,102,172],a=Math.abs(t);
return 'rgb('+[0,1,2].map(function(k){return Math.round(w[k]+(hi[k]-w[k])*a);}).join(',')+')';}
function heat(){var box=document.getElementById('hm');if(!box||!H)return;var n=H.ranks.length;
var cols=Math.max(8,Math.min(128,Math.ceil(Math.sqrt(n*4)))),rows=Math.ceil(n/cols);
var cell=Math.max(4,Math.min(16,Math.floor(512/cols))),tip=document.getElementById('hmtip');
var slow={};(H.slow||[]).forEach(function(r){slow[r]=1;});
H.steps.forEach(function(st,si){var f=document.createElement('figure');var c=document.createElement('canvas');
c.width=cols*cell;c.height=rows*cell;c.setAttribute('role','img');
c.setAttribute('aria-label','Computing of every rank against its stage median, step '+st);
var x=c.getContext('2d');for(var i=0;i<n;i++){x.fillStyle=color(ratio[si][i]);
x.fillRect((i%cols)*cell,Math.floor(i/cols)*cell,cell-(cell>4?1:0),cell-(cell>4?1:0));}
x.strokeStyle='#1f2328';x.lineWidth=1.5;for(var r in slow){var p=pos[r];if(p===undefined)continue;
x.strokeRect((p%cols)*cell-2,Math.floor(p/cols)*cell-2,cell+3,cell+3);}
function at(ev){var b=c.getBoundingClientRect(),sx=c.width/b.width,sy=c.height/b.height;
var i=Math.floor((ev.clientY-b.top)*sy/cell)*cols+Math.floor((ev.clientX-b.left)*sx/cell);return i>=0&&i<n?i:-1;}
c.addEventListener('mousemove',function(ev){var i=at(ev);if(i<0)return;
tip.textContent='Rank '+H.ranks[i]+', step '+st+': Computing '+fmt(H.c[si][i])+' ('+pct(ratio[si][i])+' vs its stage median)'+(slow[H.ranks[i]]?', judged slow':'');});
c.addEventListener('click',function(ev){var i=at(ev);if(i>=0&&window.csDrill)window.csDrill(H.ranks[i]);});
var cap=document.createElement('figcaption');cap.textContent='Step '+st+' \u2014 '+n+' ranks, '+cols+' per row';
f.appendChild(c);f.appendChild(cap);box.appendChild(f);});}
function picker(){var s=document.getElementById('gsel'),G=null;if(!s)return;
try{G=JSON.parse(document.getElementById('cs-groups').textContent);}catch(x){return;}
var f=document.createDocumentFragment();G.forEach(function(g){var o=document.createElement('option');
var d=(D.groups||[])[g[0]]||['group','?'];o.value=d[1];o.textContent=d[0]+(g[6]?' \u2014 '+g[6]+' slow links':'');f.appendChild(o);});
s.appendChild(f);var sum=document.getElementById('gsum');
function show(){var g=G[s.selectedIndex];if(!g)return;var v=s.value,d=D.groups[g[0]];
sum.textContent=d[0]+' (group '+d[1]+'): '+g[1]+' ranks, '+g[2]+' links; bandwidth min / median / max '+
g[3]+' / '+g[4]+' / '+g[5]+' GB/s'+(g[6]?'; '+g[6]+' slow links':'')+(g[7]?'; its heatmap is outlined above.':'; heatmap not drawn (see the communication_matrix table of cluster_analysis.h5).');
var rows=document.querySelectorAll('#matrix tr[data-group]'),figs=document.querySelectorAll('#matrix figure[data-group]');
for(var i=0;i<rows.length;i++){var on=rows[i].getAttribute('data-group')===v;rows[i].classList.toggle('picked',on);
if(on){var tb=rows[i].parentNode;tb.insertBefore(rows[i],tb.firstChild);}}
for(var j=0;j<figs.length;j++)figs[j].style.outline=figs[j].getAttribute('data-group')===v?'2px solid #0969da':'';}
s.addEventListener('change',function(){show();var fig=document.querySelector('#matrix figure[data-group="'+s.value+'"]');
(fig||s).scrollIntoView({block:'center'});});show();}
function extra(rank,panel){var info=D.rk&&D.rk[rank];var add=function(tag,text,cls){var el=document.createElement(tag);
el.textContent=text;if(cls)el.className=cls;panel.appendChild(el);return el;};
if(info){var co=[];if(info[2]>=0)co.push('stage (pp) '+info[2]);if(info[0]>=0)co.push('tp index '+info[0]);
if(info[1]>=0)co.push('dp index '+info[1]);if(info[3]>=0&&D.hosts)co.push('host '+D.hosts[info[3]]);
add('p','Coordinates: '+(co.length?co.join(', '):'unknown'),'note');
if(info[4]&&info[4].length){add('h3','Its groups');var ul=add('ul','');info[4].forEach(function(gi){
var li=document.createElement('li');li.textContent=D.groups[gi][0];li.title='group '+D.groups[gi][1];ul.appendChild(li);});}}
var p=pos[rank];if(H&&p!==undefined){add('h3','Its steps (Computing against its stage median)');
var t=document.createElement('table'),tb=document.createElement('tbody');
t.innerHTML='<thead><tr><th>step</th><th class="n">Computing</th><th class="n">vs stage median</th></tr></thead>';
H.steps.forEach(function(st,si){var tr=document.createElement('tr');[st,fmt(H.c[si][p]),pct(ratio[si][p])].forEach(function(v,k){
var td=document.createElement('td');td.textContent=v;if(k)td.className='n';tr.appendChild(td);});tb.appendChild(tr);});
t.appendChild(tb);panel.appendChild(t);}
var op=document.querySelector('#operators table');if(op&&op.tHead){var ths=op.tHead.rows[0].cells,mx=-1,nm=-1;
for(var i=0;i<ths.length;i++){var h=ths[i].textContent.trim();if(h==='max on rank')mx=i;if(h==='operator')nm=i;}
if(mx>=0){var hit=[];for(var r=0;r<op.tBodies[0].rows.length;r++){var row=op.tBodies[0].rows[r];
if(row.cells[mx].textContent.trim()===String(rank))hit.push(row.cells[nm].getAttribute('data-full')||row.cells[nm].textContent);}
add('h3','Top operators on which it is furthest above its stage peers');
add('p',hit.length?hit.slice(0,12).join(', '):'None of the top operators: no operator is longest on this rank against its stage median.','note');}}}
window.csDrillExtra=extra;heat();picker();})();
)JS";

}  // namespace

std::string_view views_script() {
  return kViews;
}

}  // namespace cs::report
