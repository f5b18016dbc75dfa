// The classification follows apitrace's own name table and rules (lib/trace, call flags), so that
// dumps agree with `apitrace dump`: names are grouped here by the flags they get.
#include "formats/apitrace/call_flags.h"

#include <regex>
#include <string>
#include <unordered_map>

#include "formats/apitrace/call.h"

namespace rtrace::apitrace {
namespace {

constexpr std::uint32_t kQuery = kFlagNoSideEffects;
constexpr std::uint32_t kChattyQuery = kFlagNoSideEffects | kFlagVerbose;
constexpr std::uint32_t kSwapBuffers = kFlagEndFrame | kFlagSwapRenderTarget;

struct NameGroup {
  std::uint32_t flags;
  const char* names;  // separated by spaces
};

// clang-format off
const NameGroup kGroups[] = {
  {kFlagEndFrame, "CGLFlushDrawable glFrameTerminatorGREMEDY IDirect3DDevice9::GetRenderTargetData "
                  "IDirect3DDevice9Ex::GetRenderTargetData"},
  {kSwapBuffers, "eglSwapBuffers eglSwapBuffersWithDamageEXT eglSwapBuffersWithDamageKHR "
                 "glXSwapBuffers glXSwapBuffersMscOML wglSwapBuffers wglSwapLayerBuffers "
                 "wglSwapMultipleBuffers IDirect3DDevice8::Present IDirect3DDevice9::Present "
                 "IDirect3DDevice9Ex::Present IDirect3DDevice9Ex::PresentEx "
                 "IDirect3DSwapChain9::Present IDirect3DSwapChain9Ex::Present"},
  {kFlagRender, "IDirect3DDevice2::DrawIndexedPrimitive IDirect3DDevice2::DrawPrimitive "
                "IDirect3DDevice3::DrawIndexedPrimitive "
                "IDirect3DDevice3::DrawIndexedPrimitiveStrided "
                "IDirect3DDevice3::DrawIndexedPrimitiveVB IDirect3DDevice3::DrawPrimitive "
                "IDirect3DDevice3::DrawPrimitiveStrided IDirect3DDevice3::DrawPrimitiveVB "
                "IDirect3DDevice7::Clear IDirect3DDevice7::DrawIndexedPrimitive "
                "IDirect3DDevice7::DrawIndexedPrimitiveStrided "
                "IDirect3DDevice7::DrawIndexedPrimitiveVB "
                "IDirect3DDevice7::DrawPrimitive IDirect3DDevice7::DrawPrimitiveStrided "
                "IDirect3DDevice7::DrawPrimitiveVB "
                "IDirect3DDevice8::Clear IDirect3DDevice8::DrawIndexedPrimitive "
                "IDirect3DDevice8::DrawIndexedPrimitiveUP IDirect3DDevice8::DrawPrimitive "
                "IDirect3DDevice8::DrawPrimitiveUP IDirect3DDevice8::DrawRectPatch "
                "IDirect3DDevice8::DrawTriPatch "
                "IDirect3DDevice9::Clear IDirect3DDevice9::DrawIndexedPrimitive "
                "IDirect3DDevice9::DrawIndexedPrimitiveUP IDirect3DDevice9::DrawPrimitive "
                "IDirect3DDevice9::DrawPrimitiveUP IDirect3DDevice9::DrawRectPatch "
                "IDirect3DDevice9::DrawTriPatch "
                "IDirect3DDevice9Ex::Clear IDirect3DDevice9Ex::DrawIndexedPrimitive "
                "IDirect3DDevice9Ex::DrawIndexedPrimitiveUP IDirect3DDevice9Ex::DrawPrimitive "
                "IDirect3DDevice9Ex::DrawPrimitiveUP IDirect3DDevice9Ex::DrawRectPatch "
                "IDirect3DDevice9Ex::DrawTriPatch "
                "IDirect3DViewport::Clear IDirect3DViewport2::Clear IDirect3DViewport3::Clear "
                "IDirect3DViewport3::Clear2"},
  {kFlagSwapRenderTarget, "IDirect3DDevice8::SetRenderTarget IDirect3DDevice9::SetRenderTarget "
                          "IDirect3DDevice9Ex::SetRenderTarget"},
  {kFlagVerbose, "eglGetConfigAttrib glXGetFBConfigAttrib glXGetFBConfigAttribSGIX "
                 "wglGetPixelFormatAttribivARB wglGetPixelFormatAttribivEXT"},
  {kChattyQuery,
   "CGLGetCurrentContext eglGetProcAddress eglQueryString "
   "IDirect3D8::CheckDeviceFormat IDirect3D8::EnumAdapterModes IDirect3D8::GetAdapterModeCount "
   "IDirect3D8::GetDeviceCaps IDirect3D9::CheckDeviceFormat IDirect3D9::EnumAdapterModes "
   "IDirect3D9::GetAdapterModeCount IDirect3D9::GetDeviceCaps IDirect3D9Ex::CheckDeviceFormat "
   "IDirect3D9Ex::EnumAdapterModes IDirect3D9Ex::GetAdapterModeCount IDirect3D9Ex::GetDeviceCaps "
   "IDirect3DDevice8::GetDeviceCaps IDirect3DDevice9::GetDeviceCaps "
   "IDirect3DDevice9Ex::GetDeviceCaps "
   "glGetString glGetStringi glIsAsyncMarkerSGIX glIsBuffer glIsBufferARB glIsBufferResidentNV "
   "glIsEnabled glIsEnabledIndexedEXT glIsEnabledi glIsFenceAPPLE glIsFenceNV glIsFramebuffer "
   "glIsFramebufferEXT glIsList glIsNameAMD glIsNamedBufferResidentNV glIsNamedStringARB "
   "glIsObjectBufferATI glIsOcclusionQueryNV glIsProgram glIsProgramARB glIsProgramNV "
   "glIsProgramPipeline glIsQuery glIsQueryARB glIsRenderbuffer glIsRenderbufferEXT glIsSampler "
   "glIsShader glIsSync glIsTexture glIsTextureEXT glIsTransformFeedback glIsTransformFeedbackNV "
   "glIsVariantEnabledEXT glIsVertexArray glIsVertexArrayAPPLE glIsVertexAttribEnabledAPPLE "
   "glXGetClientString glXGetConfig glXGetCurrentContext glXGetCurrentDisplay "
   "glXGetCurrentDisplayEXT glXGetCurrentDrawable glXGetCurrentReadDrawable "
   "glXGetCurrentReadDrawableSGI glXGetProcAddress glXGetProcAddressARB glXIsDirect "
   "glXQueryExtension glXQueryExtensionsString glXQueryVersion "
   "wglDescribePixelFormat wglGetCurrentContext wglGetCurrentDC wglGetDefaultProcAddress "
   "wglGetExtensionsStringARB wglGetExtensionsStringEXT wglGetPixelFormat wglGetProcAddress"},
  {kQuery | kFlagMarker, "glDebugMessageInsert glDebugMessageInsertAMD glDebugMessageInsertARB "
                         "glDebugMessageInsertKHR glInsertEventMarkerEXT"},
  {kFlagMarker, "D3DPERF_BeginEvent D3DPERF_EndEvent D3DPERF_SetMarker "
                "ID3DUserDefinedAnnotation::BeginEvent ID3DUserDefinedAnnotation::EndEvent "
                "ID3DUserDefinedAnnotation::SetMarker glPopDebugGroup glPopDebugGroupKHR "
                "glPopGroupMarkerEXT glPushDebugGroup glPushDebugGroupKHR glPushGroupMarkerEXT "
                "glStringMarkerGREMEDY"},
  {kQuery,
   "glAreProgramsResidentNV glAreTexturesResident glAreTexturesResidentEXT glBufferRegionEnabled "
   "glDebugMessageControl glDebugMessageControlARB glDebugMessageEnableAMD "
   "glGetActiveAtomicCounterBufferiv glGetActiveAttrib glGetActiveAttribARB "
   "glGetActiveSubroutineName glGetActiveSubroutineUniformName glGetActiveSubroutineUniformiv "
   "glGetActiveUniform glGetActiveUniformARB glGetActiveUniformBlockName "
   "glGetActiveUniformBlockiv glGetActiveUniformName glGetActiveUniformsiv glGetActiveVaryingNV "
   "glGetArrayObjectfvATI glGetArrayObjectivATI glGetAttachedObjectsARB glGetAttachedShaders "
   "glGetBooleanIndexedvEXT glGetBooleani_v glGetBooleanv glGetBufferParameteri64v "
   "glGetBufferParameteriv glGetBufferParameterivARB glGetBufferParameterui64vNV "
   "glGetBufferPointerv glGetBufferPointervARB glGetBufferSubData glGetBufferSubDataARB "
   "glGetClipPlane glGetColorTable glGetColorTableEXT glGetColorTableParameterfv "
   "glGetColorTableParameterfvEXT glGetColorTableParameterfvSGI glGetColorTableParameteriv "
   "glGetColorTableParameterivEXT glGetColorTableParameterivSGI glGetColorTableSGI "
   "glGetCombinerInputParameterfvNV glGetCombinerInputParameterivNV "
   "glGetCombinerOutputParameterfvNV glGetCombinerOutputParameterivNV "
   "glGetCombinerStageParameterfvNV glGetConvolutionFilterEXT glGetConvolutionParameterfv "
   "glGetConvolutionParameterfvEXT glGetConvolutionParameteriv glGetConvolutionParameterivEXT "
   "glGetDetailTexFuncSGIS glGetDoubleIndexedvEXT glGetDoublei_v glGetDoublev glGetError "
   "glGetFenceivNV glGetFinalCombinerInputParameterfvNV glGetFinalCombinerInputParameterivNV "
   "glGetFogFuncSGIS glGetFragDataIndex glGetFragmentLightfvSGIX glGetFragmentLightivSGIX "
   "glGetFragmentMaterialfvSGIX glGetFragmentMaterialivSGIX "
   "glGetFramebufferAttachmentParameteriv glGetFramebufferAttachmentParameterivEXT "
   "glGetFramebufferParameteriv glGetFramebufferParameterivEXT glGetGraphicsResetStatusARB "
   "glGetHandleARB glGetHistogramEXT glGetHistogramParameterfv glGetHistogramParameterfvEXT "
   "glGetHistogramParameteriv glGetHistogramParameterivEXT glGetImageTransformParameterfvHP "
   "glGetImageTransformParameterivHP glGetInfoLogARB glGetInstrumentsSGIX "
   "glGetInternalformati64v glGetInternalformativ glGetInvariantBooleanvEXT "
   "glGetInvariantFloatvEXT glGetInvariantIntegervEXT glGetLightfv glGetLightiv "
   "glGetListParameterfvSGIX glGetListParameterivSGIX glGetLocalConstantBooleanvEXT "
   "glGetLocalConstantFloatvEXT glGetLocalConstantIntegervEXT glGetMapAttribParameterfvNV "
   "glGetMapAttribParameterivNV glGetMapControlPointsNV glGetMapParameterfvNV "
   "glGetMapParameterivNV glGetMapdv glGetMapfv glGetMapiv glGetMaterialfv glGetMaterialiv "
   "glGetMinmaxEXT glGetMinmaxParameterfv glGetMinmaxParameterfvEXT glGetMinmaxParameteriv "
   "glGetMinmaxParameterivEXT glGetMultiTexEnvfvEXT glGetMultiTexEnvivEXT glGetMultiTexGendvEXT "
   "glGetMultiTexGenfvEXT glGetMultiTexGenivEXT glGetMultiTexLevelParameterfvEXT "
   "glGetMultiTexLevelParameterivEXT glGetMultiTexParameterIivEXT glGetMultiTexParameterIuivEXT "
   "glGetMultiTexParameterfvEXT glGetMultiTexParameterivEXT glGetMultisamplefv "
   "glGetMultisamplefvNV glGetNamedBufferParameterivEXT glGetNamedBufferParameterui64vNV "
   "glGetNamedBufferPointervEXT glGetNamedBufferSubDataEXT "
   "glGetNamedFramebufferAttachmentParameterivEXT glGetNamedFramebufferParameterivEXT "
   "glGetNamedProgramLocalParameterIivEXT glGetNamedProgramLocalParameterIuivEXT "
   "glGetNamedProgramLocalParameterdvEXT glGetNamedProgramLocalParameterfvEXT "
   "glGetNamedProgramStringEXT glGetNamedProgramivEXT glGetNamedRenderbufferParameterivEXT "
   "glGetNamedStringARB glGetNamedStringivARB glGetObjectBufferfvATI glGetObjectBufferivATI "
   "glGetObjectLabel glGetObjectParameterfvARB glGetObjectParameterivAPPLE "
   "glGetObjectParameterivARB glGetObjectPtrLabel glGetOcclusionQueryivNV "
   "glGetOcclusionQueryuivNV glGetPerfMonitorCounterDataAMD glGetPerfMonitorCounterInfoAMD "
   "glGetPerfMonitorCounterStringAMD glGetPerfMonitorCountersAMD glGetPerfMonitorGroupStringAMD "
   "glGetPerfMonitorGroupsAMD glGetPixelTexGenParameterfvSGIS glGetPixelTexGenParameterivSGIS "
   "glGetPointerIndexedvEXT glGetPointerv glGetPointervEXT glGetProgramBinary "
   "glGetProgramEnvParameterIivNV glGetProgramEnvParameterIuivNV glGetProgramEnvParameterdvARB "
   "glGetProgramEnvParameterfvARB glGetProgramInfoLog glGetProgramInterfaceiv "
   "glGetProgramLocalParameterIivNV glGetProgramLocalParameterIuivNV "
   "glGetProgramLocalParameterdvARB glGetProgramLocalParameterfvARB "
   "glGetProgramNamedParameterdvNV glGetProgramNamedParameterfvNV glGetProgramParameterdvNV "
   "glGetProgramParameterfvNV glGetProgramPipelineInfoLog glGetProgramPipelineiv "
   "glGetProgramResourceIndex glGetProgramResourceLocation glGetProgramResourceLocationIndex "
   "glGetProgramResourceName glGetProgramResourceiv glGetProgramStageiv glGetProgramStringARB "
   "glGetProgramStringNV glGetProgramSubroutineParameteruivNV glGetProgramiv glGetProgramivARB "
   "glGetProgramivNV glGetQueryIndexediv glGetQueryiv glGetQueryivARB "
   "glGetRenderbufferParameteriv glGetRenderbufferParameterivEXT glGetSamplerParameterIiv "
   "glGetSamplerParameterIuiv glGetSamplerParameterfv glGetSamplerParameteriv "
   "glGetSeparableFilterEXT glGetShaderInfoLog glGetShaderPrecisionFormat glGetShaderSource "
   "glGetShaderSourceARB glGetShaderiv glGetSharpenTexFuncSGIS glGetSynciv "
   "glGetTexBumpParameterfvATI glGetTexBumpParameterivATI glGetTexEnvfv glGetTexEnviv "
   "glGetTexFilterFuncSGIS glGetTexGendv glGetTexGenfv glGetTexGeniv glGetTrackMatrixivNV "
   "glGetTransformFeedbackVarying glGetTransformFeedbackVaryingEXT "
   "glGetTransformFeedbackVaryingNV glGetUniformIndices glGetUniformSubroutineuiv "
   "glGetUniformdv glGetUniformfv glGetUniformfvARB glGetUniformi64vNV glGetUniformiv "
   "glGetUniformivARB glGetUniformui64vNV glGetUniformuiv glGetUniformuivEXT "
   "glGetVariantArrayObjectfvATI glGetVariantArrayObjectivATI glGetVariantBooleanvEXT "
   "glGetVariantFloatvEXT glGetVariantIntegervEXT glGetVariantPointervEXT "
   "glGetVertexArrayIntegeri_vEXT glGetVertexArrayIntegervEXT glGetVertexArrayPointeri_vEXT "
   "glGetVertexArrayPointervEXT glGetVideoCaptureStreamdvNV glGetVideoCaptureStreamfvNV "
   "glGetVideoCaptureStreamivNV glGetVideoCaptureivNV glGetVideoi64vNV glGetVideoivNV "
   "glGetVideoui64vNV glGetVideouivNV glGetnMapdvARB glGetnMapfvARB glGetnMapivARB "
   "glGetnUniformdvARB glGetnUniformfvARB glGetnUniformivARB glGetnUniformuivARB "
   "glObjectLabel glObjectLabelKHR glObjectPtrLabel glObjectPtrLabelKHR"},
};
// clang-format on

const std::unordered_map<std::string, std::uint32_t>& named_flags() {
  static const std::unordered_map<std::string, std::uint32_t> table = [] {
    std::unordered_map<std::string, std::uint32_t> names;
    for (const NameGroup& group : kGroups) {
      std::string_view list = group.names;
      while (!list.empty()) {
        const std::size_t space = list.find(' ');
        const std::string_view name = list.substr(0, space);
        if (!name.empty()) {
          names.emplace(name, group.flags);
        }
        list = space == std::string_view::npos ? std::string_view() : list.substr(space + 1);
      }
    }
    return names;
  }();
  return table;
}

// Families recognised by pattern before the table (as apitrace does).
std::uint32_t flags_by_pattern(const std::string& name) {
  if (name[0] == 'g') {
    static const std::regex draw(
        "^gl([A-Z][a-z]+)*Draw(Range|Mesh)?(Arrays|Elements)([A-Z][a-zA-Z]*)?$");
    static const std::regex other_draw(
        "^gl(CallLists?|Clear|End|DrawPixels|DrawTransformFeedback([A-Z][a-zA-Z]*)?|"
        "BlitFramebuffer|Rect[dfis]v?|EvalMesh[0-9]+)[0-9A-Z]*$");
    static const std::regex bind_framebuffer("^glBindFramebuffer[0-9A-Z]*");
    static const std::regex get(
        "^gl(GetFloat|GetInteger|GetVertexAttrib|GetTex(ture)?(Level)?Parameter)\\w+$");
    if (std::regex_match(name, draw) || std::regex_match(name, other_draw)) {
      return kFlagRender;
    }
    if (std::regex_match(name, bind_framebuffer)) {
      return kFlagSwapRenderTarget;
    }
    if (std::regex_match(name, get)) {
      return kFlagNoSideEffects;
    }
  }
  if (name[0] == 'I') {
    static const std::regex present("^IDXGI(Decode)?SwapChain\\w*::Present\\w*$");
    static const std::regex draw(
        "^ID3D1(0Device|1DeviceContext)\\d*::(Draw\\w*|ExecuteCommandList)$");
    static const std::regex set_targets(
        "^ID3D1(0Device|1DeviceContext)\\d*::OMSetRenderTargets\\w*$");
    static const std::regex quality("^ID3D1[01]Device\\d*::CheckMultisampleQualityLevels$");
    if (std::regex_match(name, draw)) {
      return kFlagRender;
    }
    if (std::regex_match(name, set_targets)) {
      return kFlagSwapRenderTarget;
    }
    if (std::regex_match(name, present)) {
      return kFlagEndFrame;
    }
    if (std::regex_match(name, quality)) {
      return kChattyQuery;
    }
  }
  return 0;
}

}  // namespace

std::uint32_t call_flags_for(std::string_view function_name) {
  if (function_name.empty()) {
    return 0;
  }
  const std::string name(function_name);
  if (const std::uint32_t flags = flags_by_pattern(name); flags != 0) {
    return flags;
  }
  const auto& table = named_flags();
  const auto it = table.find(name);
  return it == table.end() ? 0 : it->second;
}

}  // namespace rtrace::apitrace
